package watcher_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/watcher"
)

func TestWatcher_LateFileIsPickedUp(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := newRig(t)
	cfg := r.path("config.json")
	r.start(t, r.options(t), cfg)

	r.expectReported(ctx, t) // absent and staying absent is not a change
	writeFile(t, cfg, "v1")
	r.expectReported(ctx, t, cfg)
}

func TestWatcher_LateParentTwoLevelsDeep(t *testing.T) {
	t.Parallel()

	t.Run("one level at a time", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		r := newRig(t)
		cfg := r.path("a", "b", "config.json")
		r.start(t, r.options(t), cfg)

		must(t, os.Mkdir(r.path("a"), 0o755))
		r.expectReported(ctx, t)
		must(t, os.Mkdir(r.path("a", "b"), 0o755))
		r.expectReported(ctx, t)
		writeFile(t, cfg, "v1")
		r.expectReported(ctx, t, cfg)
		writeFile(t, cfg, "v2") // now watched in its own directory
		r.expectReported(ctx, t, cfg)
	})

	t.Run("all at once", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		r := newRig(t)
		cfg := r.path("a", "b", "config.json")
		r.start(t, r.options(t), cfg)

		// The file is written before the watcher can have re-armed: only
		// the rescan after re-arming can find it.
		must(t, os.MkdirAll(r.path("a", "b"), 0o755))
		writeFile(t, cfg, "v1")
		r.expectReported(ctx, t, cfg)
		writeFile(t, cfg, "v2")
		r.expectReported(ctx, t, cfg)
	})
}

func TestWatcher_AtomicRenameOverIsAChange(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := newRig(t)
	cfg := r.path("config.json")
	writeFile(t, cfg, "v0")
	r.start(t, r.options(t), cfg)

	for _, content := range []string{"v1", "v2"} { // the watch survives a save
		tmp := r.path(".config.json.tmp")
		writeFile(t, tmp, content)
		must(t, os.Rename(tmp, cfg))
		r.expectReported(ctx, t, cfg)
	}
}

func TestWatcher_VimStyleSaveIsAChange(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := newRig(t)
	cfg, backup := r.path("config.json"), r.path("config.json~")
	writeFile(t, cfg, "v0")
	r.start(t, r.options(t), cfg)

	for _, content := range []string{"v1", "v2"} {
		must(t, os.Rename(cfg, backup))
		writeFile(t, cfg, content)
		must(t, os.Remove(backup))
		r.expectReported(ctx, t, cfg)
	}
	// The watcher's view is the saved content, not the moment the file was
	// missing: a chmod (which re-reads it) finds nothing new.
	must(t, os.Chmod(cfg, 0o600))
	r.expectReported(ctx, t)
}

func TestWatcher_DeleteAndRecreateIsAChange(t *testing.T) {
	t.Parallel()

	t.Run("file", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		r := newRig(t)
		cfg := r.path("config.json")
		writeFile(t, cfg, "v0")
		r.start(t, r.options(t), cfg)

		must(t, os.Remove(cfg))
		r.expectReported(ctx, t, cfg) // exists -> absent
		writeFile(t, cfg, "v1")
		r.expectReported(ctx, t, cfg) // absent -> exists
		must(t, os.Remove(cfg))       // both within one burst
		writeFile(t, cfg, "v2")
		r.expectReported(ctx, t, cfg)
	})

	// conf.d's parent is not watched, so its deletion arrives as the watched
	// directory's own event, and re-arming has to climb to the parent.
	t.Run("parent directory", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		r := newRig(t)
		dir := r.path("x", "conf.d")
		cfg := filepath.Join(dir, "config.json")
		must(t, os.MkdirAll(dir, 0o755))
		writeFile(t, cfg, "v0")
		r.start(t, r.options(t), cfg)

		must(t, os.RemoveAll(dir))
		r.expectReported(ctx, t, cfg)
		must(t, os.Mkdir(dir, 0o755))
		writeFile(t, cfg, "v1")
		r.expectReported(ctx, t, cfg)
		writeFile(t, cfg, "v2") // the new directory is watched
		r.expectReported(ctx, t, cfg)
	})

	t.Run("parent directory renamed away", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		r := newRig(t)
		dir, old := r.path("x", "conf.d"), r.path("x", "conf.d.old")
		cfg := filepath.Join(dir, "config.json")
		must(t, os.MkdirAll(dir, 0o755))
		writeFile(t, cfg, "v0")
		r.start(t, r.options(t), cfg)

		must(t, os.Rename(dir, old))
		must(t, os.Mkdir(dir, 0o755))
		writeFile(t, cfg, "v1")
		r.expectReported(ctx, t, cfg)
		// The moved directory is no longer what cfg names.
		writeFile(t, filepath.Join(old, "config.json"), "stale")
		r.expectReported(ctx, t)
		writeFile(t, cfg, "v2")
		r.expectReported(ctx, t, cfg)
	})
}

// TestWatcher_SymlinkRetargetIsAChange reproduces a Kubernetes ConfigMap
// update: config.json -> ..data/config.json, and ..data is swapped from one
// timestamped directory to the next with a rename over the link.
func TestWatcher_SymlinkRetargetIsAChange(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := newRig(t)
	cm := r.path("configmap")
	v1, v2 := filepath.Join(cm, "..v1"), filepath.Join(cm, "..v2")
	for dir, content := range map[string]string{v1: "A", v2: "B"} {
		must(t, os.MkdirAll(dir, 0o755))
		writeFile(t, filepath.Join(dir, "config.json"), content)
	}
	must(t, os.Symlink("..v1", filepath.Join(cm, "..data")))
	must(t, os.Symlink("..data/config.json", filepath.Join(cm, "config.json")))
	cfg := filepath.Join(cm, "config.json")

	spy := newSpyNotifier(t)
	opts := r.options(t)
	opts.NewNotifier = spy.factory()
	r.start(t, opts, cfg)

	// ln -s ..v2 ..data_tmp; mv -T ..data_tmp ..data
	must(t, os.Symlink("..v2", filepath.Join(cm, "..data_tmp")))
	must(t, os.Rename(filepath.Join(cm, "..data_tmp"), filepath.Join(cm, "..data")))
	r.expectReported(ctx, t, cfg)

	adds, removes := spy.calls()
	if !slices.Contains(adds, v2) {
		t.Errorf("new target directory %s not watched; adds %q", v2, adds)
	}
	if !slices.Contains(removes, v1) {
		t.Errorf("old target directory %s not released; removes %q", v1, removes)
	}

	writeFile(t, filepath.Join(v2, "config.json"), "C") // the target itself
	r.expectReported(ctx, t, cfg)
	must(t, os.RemoveAll(v1)) // the kubelet cleans up the old version
	r.expectReported(ctx, t)
}

func TestWatcher_UnrelatedFilesInTheDirectoryAreSilent(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := newRig(t)
	cfg := r.path("config.json")
	writeFile(t, cfg, "v0")
	r.start(t, r.options(t), cfg)

	for i := range 20 {
		writeFile(t, r.path("other.json"), strings.Repeat("x", i))
	}
	writeFile(t, r.path(".config.json.swp"), "swap")
	must(t, os.Rename(r.path(".config.json.swp"), r.path("config.json.bak")))
	must(t, os.Remove(r.path("config.json.bak")))
	must(t, os.Mkdir(r.path("sub"), 0o755))
	writeFile(t, r.path("sub", "config.json"), "same name, other directory")
	r.expectReported(ctx, t)

	writeFile(t, r.path("other.json"), "more noise")
	writeFile(t, cfg, "v1")
	r.expectReported(ctx, t, cfg)
}

func TestWatcher_SharedDirectoryThenSyncDownToOne(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := newRig(t)
	dir := r.path("conf.d")
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	must(t, os.Mkdir(dir, 0o755))

	spy := newSpyNotifier(t)
	opts := r.options(t)
	opts.NewNotifier = spy.factory()
	r.start(t, opts, a, b)
	if adds, _ := spy.calls(); count(adds, dir) != 1 {
		t.Fatalf("directory added %d times, want once for both files; adds %q", count(adds, dir), adds)
	}

	writeFile(t, a, "a1")
	writeFile(t, b, "b1")
	r.expectReported(ctx, t, a, b)

	r.sync(t, a)
	if _, removes := spy.calls(); slices.Contains(removes, dir) {
		t.Fatalf("directory released while a.json still needs it")
	}
	writeFile(t, b, "b2") // no longer configured
	writeFile(t, a, "a2")
	r.expectReported(ctx, t, a)

	r.sync(t) // only the sentinel, which lives elsewhere
	if _, removes := spy.calls(); count(removes, dir) != 1 {
		t.Fatalf("directory removed %d times, want once; removes %q", count(removes, dir), removes)
	}
	writeFile(t, a, "a3")
	r.expectReported(ctx, t)
}

func TestWatcher_OverflowReportsEveryPath(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := newRig(t)
	a, b, missing := r.path("a.json"), r.path("b.json"), r.path("missing", "c.json")
	writeFile(t, a, "a")
	writeFile(t, b, "b")

	spy := newSpyNotifier(t)
	opts := r.options(t)
	opts.NewNotifier = spy.factory()
	r.start(t, opts, a, b, missing)

	spy.injectError(ctx, t, fsnotify.ErrEventOverflow)
	r.expectReported(ctx, t, a, b, missing) // unchanged, but events were lost
	writeFile(t, a, "a2")                   // and the watches still work
	r.expectReported(ctx, t, a)
}

func TestWatcher_FallsBackToPolling(t *testing.T) {
	t.Parallel()

	t.Run("notifier cannot be created", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		r := newRig(t)
		cfg := r.path("conf.d", "config.json")
		opts := r.options(t)
		opts.NewNotifier = func() (watcher.Notifier, error) {
			return nil, syscall.EMFILE // inotify_init1: too many instances
		}
		r.start(t, opts, cfg)

		if reason := r.expectDegraded(ctx, t); !strings.Contains(reason, syscall.EMFILE.Error()) {
			t.Errorf("degraded reason %q does not say why", reason)
		}
		must(t, os.Mkdir(r.path("conf.d"), 0o755))
		writeFile(t, cfg, "v1")
		r.expectEventually(ctx, t, cfg)
	})

	t.Run("a watch cannot be added", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		r := newRig(t)
		cfg := r.path("config.json")
		spy := newSpyNotifier(t)
		spy.failAdd = syscall.ENOSPC // inotify: max_user_watches reached
		opts := r.options(t)
		opts.NewNotifier = spy.factory()
		r.start(t, opts, cfg)

		if reason := r.expectDegraded(ctx, t); !strings.Contains(reason, syscall.ENOSPC.Error()) {
			t.Errorf("degraded reason %q does not say why", reason)
		}
		writeFile(t, cfg, "v1")
		r.expectEventually(ctx, t, cfg)
		must(t, os.Remove(cfg))
		r.expectEventually(ctx, t, cfg)
	})
}

func TestWatcher_CloseDuringABlockedCallback(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := newRig(t)
	cfg := r.path("config.json")
	entered, release := make(chan []string, 10), make(chan struct{})
	opts := r.options(t)
	opts.OnChange = func(paths []string) {
		entered <- paths
		<-release // a consumer that stopped reading
	}
	r.start(t, opts, cfg)

	writeFile(t, cfg, "v1")
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("OnChange not called")
	}
	writeFile(t, cfg, "v2") // reported, or not yet, while the callback is stuck

	closed := make(chan error, 1)
	go func() { closed <- r.w.Close() }()
	select {
	case err := <-closed:
		must(t, err)
	case <-ctx.Done():
		t.Fatal("Close blocked behind a blocked callback")
	}
	writeFile(t, cfg, "v3") // after Close: nobody is watching

	close(release)
	select {
	case <-r.w.Done():
	case <-ctx.Done():
		t.Fatal("watcher goroutines did not end once the callback returned")
	}
	select {
	case paths := <-entered:
		t.Fatalf("OnChange(%q) called after Close", paths)
	default:
	}
}
