package peercred

import (
	"fmt"
	"net"
)

// UnixOwner returns the uid of the process at the other end of a Unix
// socket connection, as the kernel recorded it when the connection was
// made (SO_PEERCRED).
func UnixOwner(c *net.UnixConn) (uint32, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("peercred: %w", err)
	}
	var uid uint32
	var credErr error
	if err := raw.Control(func(fd uintptr) { uid, credErr = peerUID(fd) }); err != nil {
		return 0, fmt.Errorf("peercred: %w", err)
	}
	return uid, credErr
}
