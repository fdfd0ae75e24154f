package ondisk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// The trust store is one JSON file (config.Approvals) in the user's
// config directory. It is private: the directory is created 0700 and the
// file written 0600, atomically (a temporary file in the same directory,
// synced, renamed over the old one), so a reader sees the old store or the
// new one, never half of one. Writers serialise on a lock file next to it.

// ReadApprovals reads the trust store at path. A store that does not exist
// approves nothing and is not an error. One that another user owns or
// can write (or whose directory they can) is refused: whoever can write
// it can approve any file.
func ReadApprovals(path string) (config.Approvals, error) {
	fc := readStore(path, "trust store", NotWritable)
	switch {
	case fc.Missing:
		return config.Approvals{}, nil
	case fc.ReadErr != nil:
		return config.Approvals{}, fc.ReadErr
	}
	return config.ParseApprovals(fc.Data)
}

// UpdateApprovals changes the trust store at path: it reads it, applies
// change, and writes the result atomically with mode 0600, creating the
// directory (0700) if needed. Concurrent updates are serialised.
func UpdateApprovals(path string, change func(config.Approvals) (config.Approvals, error)) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("trust store directory: %w", err)
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := ReadApprovals(path)
	if err != nil {
		return err
	}
	next, err := change(cur)
	if err != nil {
		return err
	}
	if err := WritePrivate(path, next.Marshal()); err != nil {
		return fmt.Errorf("write trust store: %w", err)
	}
	return nil
}

// lockFile takes an exclusive lock on path (created 0600), released by the
// returned function.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock trust store: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock trust store: %w", err)
	}
	return func() { _ = f.Close() }, nil // closing releases the lock
}
