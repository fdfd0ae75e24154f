package httpguard

import (
	"context"
	"net"
	"net/http"
	"os"
	"sync"

	"github.com/mcpvisor/mcpvisor/actors/peercred"
)

// ownerKey is the context key of a connection's "is it the server's own
// user's?" answer.
type ownerKey struct{}

// OwnerConnContext is an http.Server's ConnContext that lets Throttle
// tell the server's own user from others: a request whose connection
// belongs to the server's effective uid (a Unix socket's peer, by
// SO_PEERCRED; a TCP client on loopback, by the kernel's socket table;
// see peercred.ConnOwner) is not throttled. That user can read the token
// file anyway, so slowing its guesses protects nothing, while throttling
// it let any local user lock the owner out: about one wrong token a
// second from another account kept the budget empty and every request
// of the owner, right token and all, was answered 429.
//
// The owner is looked up once per connection, on its first request that
// bears a token, not here: ConnContext runs on the server's accept loop,
// and a scan of the kernel's socket table there would slow every accept.
// Where the owner cannot be told (another platform, a connection from
// another machine, an unreadable table) the connection counts as
// someone else's: throttled, as every connection is on a server without
// this ConnContext.
func OwnerConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, ownerKey{}, sync.OnceValue(func() bool { return ownedByMe(c) }))
}

// fromOwner reports whether r came on a connection of the server's own
// user (false without OwnerConnContext).
func fromOwner(r *http.Request) bool {
	isOwner, ok := r.Context().Value(ownerKey{}).(func() bool)
	return ok && isOwner()
}

// ownedByMe reports whether the process at the other end of c runs as
// this process's effective uid.
func ownedByMe(c net.Conn) bool {
	uid, err := peercred.ConnOwner(c)
	return err == nil && int64(uid) == int64(os.Geteuid())
}
