package ondisk_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// approveNames returns a change that approves a fake file per name.
func approveNames(names ...string) func(config.Approvals) (config.Approvals, error) {
	return func(a config.Approvals) (config.Approvals, error) {
		for _, n := range names {
			a = a.Approve(config.FileTrust{Path: "/proj/" + n, SHA256: "h-" + n}, time.Unix(0, 0))
		}
		return a, nil
	}
}

// The store is private: the directory it creates is 0700, the file 0600,
// whatever the umask allows.
func TestTrustStore_Permissions(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config", "mcpvisor", "trust.json")
	if err := ondisk.UpdateApprovals(path, approveNames("a")); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", p, got, want)
		}
	}
	got, err := ondisk.ReadApprovals(path)
	if err != nil || got.Files["/proj/a"].SHA256 != "h-a" {
		t.Fatalf("read back %+v, %v", got, err)
	}
}

// The write replaces the file by rename: a reader that opened the old file
// still reads the whole old store, never a truncated or mixed one, and no
// temporary file is left behind.
func TestTrustStore_AtomicWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "trust.json")
	if err := ondisk.UpdateApprovals(path, approveNames("a")); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := ondisk.UpdateApprovals(path, approveNames("b")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(before)+100)
	n, _ := old.ReadAt(buf, 0)
	if string(buf[:n]) != string(before) {
		t.Fatalf("the old file was rewritten in place:\n%s", buf[:n])
	}
	after, err := ondisk.ReadApprovals(path)
	if err != nil || len(after.Files) != 2 {
		t.Fatalf("after: %+v, %v", after, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "trust.json" && e.Name() != "trust.json.lock" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// Concurrent updates are serialised: none is lost.
func TestTrustStore_ConcurrentUpdatesAllLand(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "trust.json")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- ondisk.UpdateApprovals(path, approveNames(fmt.Sprint(i)))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := ondisk.ReadApprovals(path)
	if err != nil || len(got.Files) != 8 {
		t.Fatalf("got %d approvals (%v), want 8", len(got.Files), err)
	}
}

// Whoever can write the store can approve any file: one writable by group
// or others is refused, and so is one that is not a store.
func TestTrustStore_RefusesUnsafeOrForeignFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing, err := ondisk.ReadApprovals(filepath.Join(dir, "none.json"))
	if err != nil || len(missing.Files) != 0 {
		t.Fatalf("missing store: %+v, %v", missing, err)
	}
	open := filepath.Join(dir, "open.json")
	if err := os.WriteFile(open, config.Approvals{}.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := ondisk.ReadApprovals(open); err == nil {
		t.Error("a world-writable store was accepted")
	}
	if err := ondisk.UpdateApprovals(open, approveNames("a")); err == nil {
		t.Error("a world-writable store was updated")
	}
	foreign := filepath.Join(dir, "foreign.json")
	if err := os.WriteFile(foreign, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ondisk.ReadApprovals(foreign); err == nil {
		t.Error("a file that is not a store was accepted")
	}
}
