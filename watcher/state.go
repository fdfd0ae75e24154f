package watcher

import (
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// fileState is what a configured path read as when the watcher last looked.
// It is comparable: two states are equal exactly when a reader of the path
// would see nothing new, so an unchanged state suppresses the notification
// (a touch, a chmod, a rewrite with identical bytes, an absent file that
// stays absent).
type fileState struct {
	exists bool
	// kind holds the type bits of an entry that is not a regular file (a
	// directory, a FIFO, a device). Such entries are never read: opening
	// a FIFO for reading would block the watcher.
	kind fs.FileMode
	// sum is the SHA-256 of a regular file's content.
	sum [sha256.Size]byte
	// err says why an existing path could not be read (permission, symlink
	// loop). A different reason is a different state.
	err string
}

// readState looks at path through the same name the consumer reads, so
// symlinks are followed exactly as the consumer's open(2) follows them.
func readState(path string) fileState {
	// O_NONBLOCK: if a FIFO appears at path between checks, the open must
	// not wait for a writer. It has no effect on regular files.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return fileState{}
		}
		return fileState{exists: true, err: err.Error()}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileState{exists: true, err: err.Error()}
	}
	if !fi.Mode().IsRegular() {
		return fileState{exists: true, kind: fi.Mode().Type()}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fileState{exists: true, err: err.Error()}
	}
	st := fileState{exists: true}
	h.Sum(st.sum[:0])
	return st
}
