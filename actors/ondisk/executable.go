package ondisk

import "os"

// Executable reports whether path names a file a stdio server can be
// started from: not a directory, with an execute bit set (what exec's
// own lookup asks). The process transport looks a command up on a
// server's PATH with it, and `mcpvisor check` judges commands with it, so
// that both say the same.
func Executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}
