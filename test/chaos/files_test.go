package chaos_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// configFile is one configured path and how it is written.
//
// File a is a plain file, written the ways editors and tools write:
// atomically (temporary file renamed over it), in place (truncate and
// write: a reader may see it half-written), vim-style (the old file renamed
// away, the new one written, the backup removed), or deleted and restored.
//
// File b is a symlink into a "..data" directory, as Kubernetes mounts a
// ConfigMap: b/.mcp.json → ..data/.mcp.json, ..data → ..vN. Every write
// makes a new ..vN and swaps ..data to it with one rename; delete and
// restore removes the top link and puts it back.
type configFile struct {
	index   int
	path    string // the configured path
	dir     string
	symlink bool
	version int // of the ..vN directory ..data points at (symlinked files)

	// entries is what the file declares as of its last valid write; edits
	// start from it.
	entries map[string]entry
}

func newConfigFile(index int, dir string, symlink bool) *configFile {
	return &configFile{index: index, path: filepath.Join(dir, ".mcp.json"), dir: dir, symlink: symlink, entries: map[string]entry{}}
}

// Write modes.
const (
	modeAtomic  = "atomic rename"
	modeInPlace = "in-place write"
	modeVim     = "vim-style save"
	modeSwap    = "symlink swap"
	modeDelete  = "delete and restore"
)

// write puts data into the file with mode. pause, for delete-and-restore,
// is how long the file stays away (it may be zero: then the watcher may or
// may not see it go).
func (f *configFile) write(ctx context.Context, mode string, data []byte, pause time.Duration) error {
	if f.symlink {
		if mode == modeDelete {
			if err := os.Remove(f.path); err != nil {
				return err
			}
			if err := waitFor(ctx, pause); err != nil {
				return err
			}
			if err := f.swap(data); err != nil {
				return err
			}
			return os.Symlink(filepath.Join("..data", ".mcp.json"), f.path)
		}
		return f.swap(data)
	}
	switch mode {
	case modeInPlace:
		return os.WriteFile(f.path, data, 0o600)
	case modeVim:
		backup := f.path + "~"
		if err := os.Rename(f.path, backup); err != nil && !os.IsNotExist(err) {
			return err
		}
		if err := os.WriteFile(f.path, data, 0o600); err != nil {
			return err
		}
		if err := os.Remove(backup); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	case modeDelete:
		if err := os.Remove(f.path); err != nil && !os.IsNotExist(err) {
			return err
		}
		if err := waitFor(ctx, pause); err != nil {
			return err
		}
		return f.atomic(data)
	default:
		return f.atomic(data)
	}
}

func (f *configFile) atomic(data []byte) error {
	tmp := filepath.Join(f.dir, ".mcp.json.tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, f.path)
}

// swap writes data into a fresh ..vN directory and points ..data at it
// with one rename, then removes the previous directory.
func (f *configFile) swap(data []byte) error {
	f.version++
	dir := fmt.Sprintf("..v%d", f.version)
	if err := os.Mkdir(filepath.Join(f.dir, dir), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(f.dir, dir, ".mcp.json"), data, 0o600); err != nil {
		return err
	}
	tmp := filepath.Join(f.dir, "..data_tmp")
	if err := os.Symlink(dir, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(f.dir, "..data")); err != nil {
		return err
	}
	if f.version > 1 {
		return os.RemoveAll(filepath.Join(f.dir, fmt.Sprintf("..v%d", f.version-1)))
	}
	return nil
}

// create writes the first version of the file (and, for a symlinked file,
// its links).
func (f *configFile) create(data []byte) error {
	if !f.symlink {
		return f.atomic(data)
	}
	if err := f.swap(data); err != nil {
		return err
	}
	return os.Symlink(filepath.Join("..data", ".mcp.json"), f.path)
}

// waitFor waits d (pacing the schedule, never to wait for a result).
func waitFor(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
