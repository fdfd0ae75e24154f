package ondisk

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Every file mcpvisor reads back (the API token, the trust and input
// stores, the catalog cache, the OAuth tokens) decides what runs or
// holds a secret. Another local user who can write one of them, or the
// directory that holds it (and so replace it), could approve a project
// file, serve a poisoned tool description or log the user into their own
// account. So each read checks, as ssh does for its keys, that the file
// and its directory are the user's own.
//
// Only the file's own directory is checked, not every ancestor: that is
// the directory mcpvisor creates (0700) or the user named, and a file
// can be replaced only through it. A directory owned by root counts as
// the user's (root can replace anything anyway); one writable by others
// is accepted only with the sticky bit (as /tmp), where no one else can
// rename or remove a file the user owns, and the file's own check does
// the rest.

// Check is what a stored file must keep from other users.
type Check int

const (
	// NotWritable: owned by the user, not writable by group or others
	// (the trust store, the catalog cache: their text decides what runs
	// or is shown, and is not secret).
	NotWritable Check = iota
	// NotReadable: NotWritable, and not readable by group or others
	// either (the token, the input and OAuth stores: they hold secrets).
	NotReadable
)

// ExposedError says that a stored file or its directory is open to
// another user, and the command that closes it.
type ExposedError struct {
	Path    string // the file or directory
	Problem string // "is writable by others (mode 0666)"
	Fix     string // "chmod 600 PATH"
}

func (e *ExposedError) Error() string {
	return fmt.Sprintf("%s %s: refused; run %s", e.Path, e.Problem, e.Fix)
}

// CheckFile checks path, whose file info is info (nil: CheckFile stats
// it), and its directory (CheckDir). Pass the info of the open file
// (f.Stat) where there is one, so that what is checked is what is read.
func CheckFile(path string, info fs.FileInfo, check Check) error {
	if info == nil {
		var err error
		if info, err = os.Stat(path); err != nil {
			return err
		}
	}
	if err := checkOwner(path, info, false, false); err != nil {
		return err
	}
	perm := info.Mode().Perm()
	switch {
	case check == NotReadable && perm&0o077 != 0:
		return &ExposedError{path, fmt.Sprintf("is accessible by others (mode %04o)", perm), "chmod 600 " + path}
	case perm&0o022 != 0:
		return &ExposedError{path, fmt.Sprintf("is writable by others (mode %04o)", perm), "chmod go-w " + path}
	}
	return CheckDir(filepath.Dir(path))
}

// CheckDir checks that dir is owned by the user (or root) and not
// writable by group or others unless sticky (see above).
func CheckDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if err := checkOwner(dir, info, true, true); err != nil {
		return err
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 && info.Mode()&fs.ModeSticky == 0 {
		return &ExposedError{"directory " + dir, fmt.Sprintf("is writable by others (mode %04o)", perm), "chmod 700 " + dir}
	}
	return nil
}

// CheckPrivateDir checks that dir is a directory of the user's alone:
// not a symbolic link, owned by the user (not root: this is a directory
// the user makes), and neither readable, writable nor searchable by
// group or others. That is stricter than CheckDir, for a directory whose
// entries are not files mcpvisor can check one by one: the API's Unix
// socket, which anyone who can reach it can connect to, and which anyone
// who can write its directory can replace. A missing directory is an
// error for which errors.Is(err, fs.ErrNotExist) holds.
func CheckPrivateDir(dir string) error {
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return &ExposedError{dir, "is not a directory", "rm " + dir + " (mcpvisor makes the directory again)"}
	}
	if err := checkOwner(dir, info, true, false); err != nil {
		return err
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return &ExposedError{"directory " + dir, fmt.Sprintf("is accessible by others (mode %04o)", perm), "chmod 700 " + dir}
	}
	return nil
}

// checkOwner refuses info when it is another user's (or, when rootToo,
// root's).
func checkOwner(path string, info fs.FileInfo, isDir, rootToo bool) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil // no owner to check on this system
	}
	euid := uint32(os.Geteuid())
	if st.Uid == euid || rootToo && st.Uid == 0 {
		return nil
	}
	what := path
	if isDir {
		what = "directory " + path
	}
	return &ExposedError{what, fmt.Sprintf("is owned by uid %d, not by you (uid %d)", st.Uid, euid),
		fmt.Sprintf("chown %d %s (or remove it)", euid, path)}
}

// OpenChecked opens path for reading once CheckFile has passed on the
// open file itself, so that what was checked is what is read (a file
// swapped between a check and an open is not). A failure to open is
// returned as it is (errors.Is(err, fs.ErrNotExist) holds for a missing
// file); a refusal is an *ExposedError.
func OpenChecked(path string, check Check) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = CheckFile(path, info, check)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
