package watcher_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/fsnotify/fsnotify"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/watcher"
)

// fakeNotifier is a Notifier driven by the test: events and errors are sent
// by hand on unbuffered channels, so a send returns only once the watcher's
// loop has taken it, and a second send returns only once the first has been
// fully handled (the loop is single-threaded). Add and Remove are recorded.
type fakeNotifier struct {
	events chan fsnotify.Event
	errs   chan error
	closed chan struct{}

	mu        sync.Mutex
	adds      []string
	removes   []string
	addErr    error // returned by every Add when set
	closeOnce sync.Once
}

func newFakeNotifier() *fakeNotifier {
	return &fakeNotifier{
		events: make(chan fsnotify.Event),
		errs:   make(chan error),
		closed: make(chan struct{}),
	}
}

// factory returns an Options.NewNotifier that hands out f.
func (f *fakeNotifier) factory() func() (watcher.Notifier, error) {
	return func() (watcher.Notifier, error) { return f, nil }
}

func (f *fakeNotifier) Add(dir string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.addErr != nil {
		return f.addErr
	}
	f.adds = append(f.adds, dir)
	return nil
}

func (f *fakeNotifier) Remove(dir string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removes = append(f.removes, dir)
	return nil
}

func (f *fakeNotifier) Events() <-chan fsnotify.Event { return f.events }
func (f *fakeNotifier) Errors() <-chan error          { return f.errs }

func (f *fakeNotifier) Close() error {
	f.closeOnce.Do(func() { close(f.closed) })
	return nil
}

func (f *fakeNotifier) calls() (adds, removes []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.adds), slices.Clone(f.removes)
}

// send delivers one event and returns once the watcher's loop has taken it.
func (f *fakeNotifier) send(ctx context.Context, t testing.TB, name string, op fsnotify.Op) {
	t.Helper()
	select {
	case f.events <- fsnotify.Event{Name: name, Op: op}:
	case <-ctx.Done():
		t.Fatalf("send %s %s: %v", op, name, ctx.Err())
	}
}

// sendError delivers one asynchronous error.
func (f *fakeNotifier) sendError(ctx context.Context, t testing.TB, err error) {
	t.Helper()
	select {
	case f.errs <- err:
	case <-ctx.Done():
		t.Fatalf("send error %v: %v", err, ctx.Err())
	}
}

// recorder collects callbacks. Its channels are buffered far beyond what any
// test produces, so a callback never blocks on it.
type recorder struct {
	changes  chan []string
	degraded chan string
}

func newRecorder() *recorder {
	return &recorder{changes: make(chan []string, 100), degraded: make(chan string, 10)}
}

func (r *recorder) onChange(paths []string)  { r.changes <- slices.Clone(paths) }
func (r *recorder) onDegraded(reason string) { r.degraded <- reason }

// expectChange fails unless the next notification is exactly want.
func (r *recorder) expectChange(ctx context.Context, t testing.TB, want ...string) {
	t.Helper()
	select {
	case got := <-r.changes:
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("notification mismatch (-want +got):\n%s", diff)
		}
	case <-ctx.Done():
		t.Fatalf("waiting for notification %v: %v", want, ctx.Err())
	}
}

// expectNoChangeYet fails if a notification is already queued. It proves
// silence only when the test also knows no flush can have happened.
func (r *recorder) expectNoChangeYet(t testing.TB) {
	t.Helper()
	select {
	case got := <-r.changes:
		t.Fatalf("unexpected notification %v", got)
	default:
	}
}

func (r *recorder) expectDegraded(ctx context.Context, t testing.TB) string {
	t.Helper()
	select {
	case reason := <-r.degraded:
		return reason
	case <-ctx.Done():
		t.Fatalf("waiting for OnDegraded: %v", ctx.Err())
		return ""
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tempDir is t.TempDir with symlinks resolved, so expected watch paths
// compare equal to the watcher's symlink-free ones.
func tempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
