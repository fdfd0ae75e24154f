package watcher_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
	"github.com/mcpvisor/mcpvisor/watcher"
)

// TestWatcher_HundredWatchersLeakNothing creates and closes 100 watchers on
// real inotify and checks that goroutines and file descriptors come back to
// where they were. It is deliberately not parallel: it measures the whole
// process, and runs while the parallel tests are parked in t.Parallel.
func TestWatcher_HundredWatchersLeakNothing(t *testing.T) {
	ctx := actorstest.ContextTimeout(t, 60*time.Second)
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	// Every kind of watch: a shared directory, a missing parent (ancestor
	// watch) and a symlink (link and target directories).
	cfg := filepath.Join(root, "config.json")
	writeFile(t, cfg, "v0")
	must(t, os.Mkdir(filepath.Join(root, "target"), 0o755))
	writeFile(t, filepath.Join(root, "target", "real.json"), "x")
	must(t, os.Symlink("target/real.json", filepath.Join(root, "link.json")))
	paths := []string{
		cfg,
		filepath.Join(root, "other.json"),
		filepath.Join(root, "late", "deeper", "config.json"),
		filepath.Join(root, "link.json"),
	}

	run := func(i int) {
		changes := make(chan []string, 10)
		w, err := watcher.New(paths, watcher.Options{
			Debounce: time.Millisecond,
			OnChange: func(p []string) { changes <- p },
		})
		must(t, err)
		if i%10 == 0 { // exercise the timers and the delivery goroutine too
			writeFile(t, cfg, time.Now().String())
			select {
			case <-changes:
			case <-ctx.Done():
				t.Fatalf("watcher %d: no notification: %v", i, ctx.Err())
			}
		}
		must(t, w.Close())
		select {
		case <-w.Done():
		case <-ctx.Done():
			t.Fatalf("watcher %d: goroutines still running after Close", i)
		}
	}

	run(-1) // warm up: the runtime's poller opens its descriptors once
	fdsBefore := testkit.OpenFDs(t)
	ignore := goleak.IgnoreCurrent()
	for i := range 100 {
		run(i)
	}
	goleak.VerifyNone(t, ignore)
	if fdsAfter := testkit.OpenFDs(t); len(fdsAfter) != len(fdsBefore) {
		t.Errorf("%d file descriptors open before, %d after: %v -> %v", len(fdsBefore), len(fdsAfter), fdsBefore, fdsAfter)
	}
}
