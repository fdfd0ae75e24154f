package ondisk

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// ReadConfigFiles reads each path. It does the I/O that config.Load,
// being pure, does not: a missing file is Missing, anything unreadable is
// a ReadErr for that file only.
func ReadConfigFiles(paths []string) []config.FileContent {
	out := make([]config.FileContent, 0, len(paths))
	for _, p := range paths {
		out = append(out, readConfigFile(p))
	}
	return out
}

func readConfigFile(path string) config.FileContent { return readFile(path, nil) }

// readStore reads a store file as readConfigFile does, refused unless
// CheckFile passes on the file it opened (check: what other users must
// not do to it), so that what was checked is what is read: a symlink
// swapped between the read and a check by path is not. A refusal is the
// ReadErr, "WHAT " before it.
func readStore(path, what string, check Check) config.FileContent {
	return readFile(path, func(info fs.FileInfo) error {
		if err := CheckFile(path, info, check); err != nil {
			return fmt.Errorf("%s %w", what, err)
		}
		return nil
	})
}

// afterOpen, when set (by a test), runs once a file is open, before it is
// checked and read.
var afterOpen func(path string)

// readFile reads path, bounded and refused unless a regular file; check,
// when not nil, is run on the open file's info before anything is read.
func readFile(path string, check func(fs.FileInfo) error) config.FileContent {
	fc := config.FileContent{Path: path}
	// Non-blocking, so that a FIFO (or a symlink to /dev/stdin, which a
	// cloned repository can hold) cannot hang the read or eat another
	// reader's input: it is refused below as not a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		fc.Missing = true
		return fc
	}
	if err != nil {
		fc.ReadErr = err
		return fc
	}
	defer f.Close()
	if afterOpen != nil {
		afterOpen(path)
	}
	info, err := f.Stat()
	if err == nil && check != nil {
		err = check(info)
	}
	switch {
	case err != nil:
		fc.ReadErr = err
	case info.IsDir():
		fc.ReadErr = errors.New("is a directory, not a config file")
	case !info.Mode().IsRegular():
		fc.ReadErr = errors.New("is not a regular file")
	case info.Size() > config.MaxConfigBytes:
		fc.ReadErr = fmt.Errorf("file is %d bytes, larger than the %d byte limit", info.Size(), config.MaxConfigBytes)
	default:
		fc.Data, fc.ReadErr = io.ReadAll(io.LimitReader(f, config.MaxConfigBytes+1))
		if fc.ReadErr == nil && len(fc.Data) > config.MaxConfigBytes {
			fc.Data, fc.ReadErr = nil, fmt.Errorf("file is larger than the %d byte limit", config.MaxConfigBytes)
		}
	}
	return fc
}

// ReadEnvFile reads an envFile (config.LoadOptions.ReadFile): bounded
// like a config file, refusing what is not a regular file.
func ReadEnvFile(path string) ([]byte, error) {
	fc := readConfigFile(path)
	switch {
	case fc.Missing:
		return nil, os.ErrNotExist
	case fc.ReadErr != nil:
		return nil, fc.ReadErr
	}
	return fc.Data, nil
}
