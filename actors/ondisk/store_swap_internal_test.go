package ondisk

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// C1, checked by path after the read: a store path that is a symlink,
// pointed at a file others can write while it is read and at a private
// one when it is checked, passed (the check stat'ed the path again). The
// stores check the file they opened: the exposed one is refused, and so
// is an exposed store read without a swap.
//
// Not parallel: it sets afterOpen, which every read in the package runs
// (the package's parallel tests wait until it is done).
func TestStores_CheckTheFileTheyRead(t *testing.T) {
	dir := t.TempDir()
	approvals := config.Approvals{}.Approve(config.FileTrust{Path: "/proj/evil/.mcp.json", SHA256: "h"}, time.Unix(0, 0))
	inputs := config.InputStore{}
	inputs.Values(config.InputScope{})["gh"] = "value"
	for name, c := range map[string]struct {
		data []byte
		read func(path string) error
	}{
		"trust store": {approvals.Marshal(), func(p string) error { _, err := ReadApprovals(p); return err }},
		"input store": {inputs.Marshal(), func(p string) error { _, err := ReadInputs(p); return err }},
	} {
		exposed, private, store := filepath.Join(dir, name+"-exposed"), filepath.Join(dir, name+"-private"), filepath.Join(dir, name)
		for path, mode := range map[string]os.FileMode{exposed: 0o666, private: 0o600} {
			if err := os.WriteFile(path, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(exposed, store); err != nil {
			t.Fatal(err)
		}
		afterOpen = func(path string) {
			if path != store {
				return
			}
			if err := os.Remove(store); err != nil {
				t.Error(err)
			}
			if err := os.Symlink(private, store); err != nil {
				t.Error(err)
			}
		}
		var exposedErr *ExposedError
		if err := c.read(store); !errors.As(err, &exposedErr) {
			t.Errorf("%s: read through a symlink swapped after the open: %v, want the exposed file refused", name, err)
		}
		afterOpen = nil
		if err := c.read(exposed); !errors.As(err, &exposedErr) {
			t.Errorf("%s: an exposed store: %v, want it refused", name, err)
		}
	}
}
