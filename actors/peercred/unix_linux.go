package peercred

import (
	"fmt"

	"golang.org/x/sys/unix"
)

func peerUID(fd uintptr) (uint32, error) {
	cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, fmt.Errorf("peercred: SO_PEERCRED: %w", err)
	}
	return cred.Uid, nil
}
