//go:build unix

package cli

import (
	"errors"
	"os"
	"syscall"
)

// errLockHeld: another process holds the lock.
var errLockHeld = errors.New("held by another process")

// lockExclusiveNow takes f's flock exclusively, or fails at once with
// errLockHeld.
func lockExclusiveNow(f *os.File) error {
	err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLockHeld
	}
	return err
}

// lockShared takes f's flock shared, waiting for an exclusive holder (a
// daemon writing a new token) to finish.
func lockShared(f *os.File) error { return flock(f, syscall.LOCK_SH) }

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
