//go:build !unix

package cli

import "io/fs"

// fileOwner: files have no uid here.
func fileOwner(fs.FileInfo) (uint32, bool) { return 0, false }
