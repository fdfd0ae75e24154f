package ondisk_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// A private directory (the API socket's) is the user's alone: another
// user's (nobody's, for real), one any other user can enter or list, a
// symbolic link or a file in its place are refused, each with the
// command that fixes it.
func TestCheckPrivateDir(t *testing.T) {
	t.Parallel()
	other := testkit.Stranger(t)
	me := strconv.Itoa(os.Geteuid())
	cases := map[string]func(dir string) (named, fix string){
		"the user's own, 0700": func(string) (string, string) { return "", "" },
		"owned by another user": func(dir string) (string, string) {
			other.Chown(t, dir)
			return "directory " + dir, "chown " + me + " " + dir
		},
		"searchable by others": func(dir string) (string, string) {
			chmod(t, dir, 0o711)
			return "directory " + dir, "chmod 700 " + dir
		},
		"readable by its group": func(dir string) (string, string) {
			chmod(t, dir, 0o740)
			return "directory " + dir, "chmod 700 " + dir
		},
		"a symbolic link to a private directory": func(dir string) (string, string) {
			target := t.TempDir()
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, dir); err != nil {
				t.Fatal(err)
			}
			return dir, "rm " + dir
		},
		"a file": func(dir string) (string, string) {
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return dir, "rm " + dir
		},
	}
	for what, setup := range cases {
		dir := filepath.Join(t.TempDir(), "mcpvisor")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		named, fix := setup(dir)
		err := ondisk.CheckPrivateDir(dir)
		switch {
		case named == "" && err != nil:
			t.Errorf("%s: %v, want it accepted", what, err)
		case named != "" && (err == nil || !strings.Contains(err.Error(), named+" ") || !strings.Contains(err.Error(), "run "+fix)):
			t.Errorf("%s: %v, want a refusal naming %q and %q", what, err, named, fix)
		}
	}
	if err := ondisk.CheckPrivateDir(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing directory: %v, want fs.ErrNotExist", err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
