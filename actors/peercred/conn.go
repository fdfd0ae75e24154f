package peercred

import (
	"errors"
	"net"
)

// ErrNotLocal is returned by ConnOwner for a connection that is neither
// a Unix socket's nor a TCP one from a loopback address: its peer may be
// on another machine, where no uid means anything here.
var ErrNotLocal = errors.New("peercred: the peer is not on a Unix socket or a loopback address")

// ConnOwner returns the uid of the process at the other end of c, an
// accepted connection: SO_PEERCRED for a Unix socket (UnixOwner); for TCP
// from a loopback address, the owner of the client's socket in the
// kernel's tables (TCPOwner with c's remote address as that socket's own).
// Ask while the connection is open: once the client's end is closed the
// TCP answer is ErrNotFound.
func ConnOwner(c net.Conn) (uint32, error) {
	switch c := c.(type) {
	case *net.UnixConn:
		return UnixOwner(c)
	case *net.TCPConn:
		remote, okR := c.RemoteAddr().(*net.TCPAddr)
		local, okL := c.LocalAddr().(*net.TCPAddr)
		if !okR || !okL || !remote.IP.IsLoopback() {
			return 0, ErrNotLocal
		}
		return TCPOwner(remote.AddrPort(), local.AddrPort())
	}
	return 0, ErrNotLocal
}
