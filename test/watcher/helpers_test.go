package watcher_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/watcher"
)

// testDebounce keeps real-clock tests fast. Nothing depends on it for
// correctness: assertions use the sentinel barrier, never elapsed time.
const testDebounce = 10 * time.Millisecond

// rig is one real watcher plus a sentinel: a configured file, in the test's
// root directory, that only the test writes. Writing it is a barrier. The
// kernel queues events in order and the watcher reports a path no later
// than any path whose event came after it, so once a notification naming
// the sentinel arrives, every change made before the sentinel write has been
// reported, and everything not reported by then was judged unchanged.
type rig struct {
	root     string
	sentinel string
	w        *watcher.Watcher
	changes  chan []string
	degraded chan string
	barriers int
}

// newRig creates a root directory and a sentinel in it. Adjust opts (from
// rig.options) and call start.
func newRig(t *testing.T) *rig {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{
		root:     root,
		sentinel: filepath.Join(root, "sentinel"),
		changes:  make(chan []string, 1000),
		degraded: make(chan string, 10),
	}
	writeFile(t, r.sentinel, "0")
	return r
}

func (r *rig) path(parts ...string) string {
	return filepath.Join(append([]string{r.root}, parts...)...)
}

func (r *rig) options(t *testing.T) watcher.Options {
	return watcher.Options{
		Logger:       zaptest.NewLogger(t),
		Debounce:     testDebounce,
		MaxWait:      time.Second,
		PollInterval: testDebounce,
		OnChange:     func(paths []string) { r.changes <- slices.Clone(paths) },
		OnDegraded:   func(reason string) { r.degraded <- reason },
	}
}

// start watches paths and the sentinel.
func (r *rig) start(t *testing.T, opts watcher.Options, paths ...string) {
	t.Helper()
	w, err := watcher.New(append(paths, r.sentinel), opts)
	if err != nil {
		t.Fatal(err)
	}
	r.w = w
	t.Cleanup(func() { closeAndWait(t, w) })
}

// sync replaces the configured paths, keeping the sentinel.
func (r *rig) sync(t *testing.T, paths ...string) {
	t.Helper()
	if err := r.w.Sync(append(paths, r.sentinel)); err != nil {
		t.Fatal(err)
	}
}

// reportedBeforeBarrier writes the sentinel and returns every other path
// reported up to and including the notification that names it, sorted and
// deduplicated.
func (r *rig) reportedBeforeBarrier(ctx context.Context, t *testing.T) []string {
	t.Helper()
	r.barriers++
	writeFile(t, r.sentinel, fmt.Sprint(r.barriers))
	seen := map[string]bool{}
	for {
		select {
		case paths := <-r.changes:
			done := false
			for _, p := range paths {
				if p == r.sentinel {
					done = true
				} else {
					seen[p] = true
				}
			}
			if done {
				out := make([]string, 0, len(seen))
				for p := range seen {
					out = append(out, p)
				}
				slices.Sort(out)
				return out
			}
		case <-ctx.Done():
			t.Fatalf("barrier %d: sentinel never reported: %v", r.barriers, ctx.Err())
			return nil
		}
	}
}

// expectReported fails unless exactly want (in any grouping) was reported
// before the barrier.
func (r *rig) expectReported(ctx context.Context, t *testing.T, want ...string) {
	t.Helper()
	got := r.reportedBeforeBarrier(ctx, t)
	if want == nil {
		want = []string{}
	}
	slices.Sort(want)
	if !slices.Equal(want, got) {
		t.Fatalf("reported before barrier %d: got %q, want %q", r.barriers, got, want)
	}
}

func closeAndWait(t *testing.T, w *watcher.Watcher) {
	t.Helper()
	if err := w.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case <-w.Done():
	case <-time.After(10 * time.Second): // cleanup runs after the test context
		t.Error("watcher goroutines still running 10s after Close")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// spyNotifier wraps the real fsnotify Notifier to record Add and Remove,
// fail Add on demand, and inject errors into its Errors channel.
type spyNotifier struct {
	inner   watcher.Notifier
	errs    chan error
	inject  chan injection
	stop    chan struct{}
	stopped sync.Once
	done    chan struct{}

	mu      sync.Mutex
	adds    []string
	removes []string
	failAdd error
}

func newSpyNotifier(t *testing.T) *spyNotifier {
	t.Helper()
	inner, err := watcher.NewFSNotifier()
	if err != nil {
		t.Fatal(err)
	}
	s := &spyNotifier{
		inner:  inner,
		errs:   make(chan error),
		inject: make(chan injection),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	go s.forwardErrors()
	return s
}

func (s *spyNotifier) factory() func() (watcher.Notifier, error) {
	return func() (watcher.Notifier, error) { return s, nil }
}

type injection struct {
	err   error
	taken chan struct{} // closed once the watcher's loop has received err
}

// forwardErrors merges the real errors and injected ones.
func (s *spyNotifier) forwardErrors() {
	defer close(s.done)
	defer close(s.errs)
	for {
		var in injection
		select {
		case e, ok := <-s.inner.Errors():
			if !ok {
				return
			}
			in.err = e
		case in = <-s.inject:
		case <-s.stop:
			return
		}
		select {
		case s.errs <- in.err:
			if in.taken != nil {
				close(in.taken)
			}
		case <-s.stop:
			return
		}
	}
}

// injectError returns once the watcher's loop has received err. The loop
// handles one input at a time, so any event caused after this returns is
// handled after err.
func (s *spyNotifier) injectError(ctx context.Context, t *testing.T, err error) {
	t.Helper()
	in := injection{err: err, taken: make(chan struct{})}
	select {
	case s.inject <- in:
	case <-ctx.Done():
		t.Fatalf("inject %v: %v", err, ctx.Err())
	}
	select {
	case <-in.taken:
	case <-ctx.Done():
		t.Fatalf("inject %v: not taken: %v", err, ctx.Err())
	}
}

func (s *spyNotifier) Add(dir string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failAdd != nil {
		return s.failAdd
	}
	if err := s.inner.Add(dir); err != nil {
		return err
	}
	s.adds = append(s.adds, dir)
	return nil
}

func (s *spyNotifier) Remove(dir string) error {
	s.mu.Lock()
	s.removes = append(s.removes, dir)
	s.mu.Unlock()
	return s.inner.Remove(dir)
}

func (s *spyNotifier) Events() <-chan fsnotify.Event { return s.inner.Events() }
func (s *spyNotifier) Errors() <-chan error          { return s.errs }

func (s *spyNotifier) Close() error {
	s.stopped.Do(func() { close(s.stop) })
	err := s.inner.Close()
	<-s.done
	return err
}

func (s *spyNotifier) calls() (adds, removes []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.adds), slices.Clone(s.removes)
}

func count(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// expectEventually waits for a notification naming path. It is for the
// polling fallback, where one poll pass reads the paths in no particular
// order, so the sentinel barrier does not apply.
func (r *rig) expectEventually(ctx context.Context, t *testing.T, path string) {
	t.Helper()
	for {
		select {
		case paths := <-r.changes:
			if slices.Contains(paths, path) {
				return
			}
		case <-ctx.Done():
			t.Fatalf("%s never reported: %v", path, ctx.Err())
		}
	}
}

func (r *rig) expectDegraded(ctx context.Context, t *testing.T) string {
	t.Helper()
	select {
	case reason := <-r.degraded:
		return reason
	case <-ctx.Done():
		t.Fatalf("OnDegraded not called: %v", ctx.Err())
		return ""
	}
}
