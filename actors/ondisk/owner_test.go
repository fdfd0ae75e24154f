package ondisk_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// storeReaders are the stores' readers, each with a valid file.
var storeReaders = map[string]struct {
	data []byte
	read func(string) error
}{
	"trust": {config.Approvals{}.Marshal(), func(p string) error { _, err := ondisk.ReadApprovals(p); return err }},
	"input": {[]byte(`{"version": 1, "inputs": {"pat": "v"}}`), func(p string) error { _, err := ondisk.ReadInputs(p); return err }},
}

// A store another user owns, or whose directory another user owns or
// can write (and so can replace the store), is refused with an error
// that names the file or directory and the command that fixes it. The
// other user is real: files and directories are given to nobody.
func TestStores_RefuseWhatAnotherUserControls(t *testing.T) {
	t.Parallel()
	other := testkit.Stranger(t)
	me := strconv.Itoa(os.Geteuid())
	for name, store := range storeReaders {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// setup makes dir/store.json and returns the path the error
			// must name and the fix it must give.
			cases := map[string]func(dir, file string) (string, string){
				"file owned by another user": func(_, file string) (string, string) {
					other.Chown(t, file)
					return file, "chown " + me + " " + file
				},
				"directory owned by another user": func(dir, _ string) (string, string) {
					other.Chown(t, dir)
					return "directory " + dir, "chown " + me + " " + dir
				},
				"directory writable by others": func(dir, _ string) (string, string) {
					if err := os.Chmod(dir, 0o777); err != nil {
						t.Fatal(err)
					}
					return "directory " + dir, "chmod 700 " + dir
				},
				"directory writable by its group": func(dir, _ string) (string, string) {
					if err := os.Chmod(dir, 0o770); err != nil {
						t.Fatal(err)
					}
					return "directory " + dir, "chmod 700 " + dir
				},
			}
			for what, setup := range cases {
				dir := filepath.Join(t.TempDir(), "mcpvisor")
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(dir, "store.json")
				if err := os.WriteFile(file, store.data, 0o600); err != nil {
					t.Fatal(err)
				}
				if err := store.read(file); err != nil {
					t.Fatalf("%s: the user's own store refused: %v", what, err)
				}
				named, fix := setup(dir, file)
				err := store.read(file)
				if err == nil || !strings.Contains(err.Error(), named+" ") || !strings.Contains(err.Error(), "run "+fix) {
					t.Errorf("%s: read = %v, want a refusal naming %q and %q", what, err, named, fix)
				}
			}
		})
	}
}

// A store in a shared sticky directory (as /tmp: root's, every user may
// write it) is the user's when the file is theirs, since no one else can
// replace it there; a file another user planted there is refused.
func TestStores_StickySharedDirectory(t *testing.T) {
	t.Parallel()
	other := testkit.Stranger(t)
	ctx := actorstest.Context(t)
	for name, store := range storeReaders {
		shared := testkit.SharedDir(t)
		mine := filepath.Join(shared, "mine.json")
		if err := os.WriteFile(mine, store.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := store.read(mine); err != nil {
			t.Errorf("%s: the user's own file in a sticky directory refused: %v", name, err)
		}
		planted := filepath.Join(shared, "planted.json")
		other.WriteFile(ctx, t, planted, store.data)
		if err := store.read(planted); err == nil || !strings.Contains(err.Error(), planted+" is owned by uid "+strconv.Itoa(other.UID)) {
			t.Errorf("%s: a file nobody planted: read = %v, want it refused as nobody's", name, err)
		}
	}
}

// The secret-holding check refuses a file its group may read; the other
// one does not, but refuses one its group may write.
func TestCheckFile_Modes(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode         os.FileMode
		check        ondisk.Check
		wantProblem  string // "" for accepted
		wantFixInErr string
	}{
		{0o600, ondisk.NotReadable, "", ""},
		{0o640, ondisk.NotReadable, "is accessible by others (mode 0640)", "run chmod 600 " + file},
		{0o644, ondisk.NotWritable, "", ""},
		{0o620, ondisk.NotWritable, "is writable by others (mode 0620)", "run chmod go-w " + file},
		{0o602, ondisk.NotWritable, "is writable by others (mode 0602)", "run chmod go-w " + file},
	} {
		if err := os.Chmod(file, c.mode); err != nil {
			t.Fatal(err)
		}
		err := ondisk.CheckFile(file, nil, c.check)
		switch {
		case c.wantProblem == "" && err != nil:
			t.Errorf("mode %04o, check %d: %v, want accepted", c.mode, c.check, err)
		case c.wantProblem != "" && (err == nil || !strings.Contains(err.Error(), file+" "+c.wantProblem) || !strings.Contains(err.Error(), c.wantFixInErr)):
			t.Errorf("mode %04o, check %d: %v, want %q and %q", c.mode, c.check, err, c.wantProblem, c.wantFixInErr)
		}
	}
}
