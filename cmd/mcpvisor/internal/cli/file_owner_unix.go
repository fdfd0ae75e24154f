//go:build unix

package cli

import (
	"io/fs"
	"syscall"
)

// fileOwner is the uid that owns a file.
func fileOwner(st fs.FileInfo) (uint32, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return sys.Uid, true
}
