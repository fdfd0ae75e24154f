// Package peercred tells which local user is at the other end of a
// connection on this machine, so that mcpvisor can refuse to talk to
// anyone else where a token or a login is at stake:
//
//   - TCPOwner reads the kernel's socket tables (/proc/net/tcp and
//     /proc/net/tcp6, Linux) for the user that owns one end of a
//     loopback TCP connection: the OAuth login's callback listener asks
//     who connected to it, and the CLI asks who accepted its connection
//     to the daemon before it sends the API token.
//   - UnixOwner reads SO_PEERCRED of a Unix socket connection.
//   - ConnOwner picks the one that fits an accepted connection: the API
//     and the gateway ask it whether a request comes from their own user,
//     whose wrong tokens they do not throttle.
//
// Elsewhere than Linux both return ErrUnsupported, and each caller says
// what it does then.
//
// # Goroutines
//
// None: every function runs on its caller's goroutine.
package peercred
