package ondisk

import (
	"os"
	"path/filepath"
)

// WritePrivate replaces path with data, mode 0600, atomically: a
// temporary file in the same directory, synced, then renamed over path,
// so that a reader sees the old content or the new, never a part, and
// nobody else can read it on the way. The directory must exist.
func WritePrivate(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(0o600); err == nil {
		if _, err = tmp.Write(data); err == nil {
			err = tmp.Sync()
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // make the rename durable; best effort
		_ = d.Close()
	}
	return nil
}
