package watcher_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/fsnotify/fsnotify"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/watcher"
)

// These tests run the watcher on the quartz mock clock and feed synthetic
// events through a fake Notifier. The files are real (the watcher hashes
// them when a burst ends); the events and the time are the test's.

type mockRig struct {
	clock *quartz.Mock
	fake  *fakeNotifier
	rec   *recorder
	w     *watcher.Watcher
}

// newMockRig prepares a clock, a fake Notifier and a recorder. Set traps on
// rig.clock, then call start.
func newMockRig(t *testing.T) *mockRig {
	t.Helper()
	return &mockRig{clock: quartz.NewMock(t), fake: newFakeNotifier(), rec: newRecorder()}
}

func (r *mockRig) options(t *testing.T) watcher.Options {
	return watcher.Options{
		Clock:       r.clock,
		Logger:      zaptest.NewLogger(t),
		OnChange:    r.rec.onChange,
		OnDegraded:  r.rec.onDegraded,
		NewNotifier: r.fake.factory(),
	}
}

func (r *mockRig) start(t *testing.T, paths ...string) {
	t.Helper()
	r.startWith(t, r.options(t), paths...)
}

func (r *mockRig) startWith(t *testing.T, opts watcher.Options, paths ...string) {
	t.Helper()
	w, err := watcher.New(paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	r.w = w
	t.Cleanup(func() { closeAndWait(t, w) })
}

// closeAndWait closes w and waits until all its goroutines are gone.
func closeAndWait(t testing.TB, w *watcher.Watcher) {
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

// advanceToNext fires the next timer and returns how far the clock moved.
func (r *mockRig) advanceToNext(t *testing.T) time.Duration {
	t.Helper()
	d, wait := r.clock.AdvanceNext()
	wait.MustWait(actorstest.Context(t))
	return d
}

// expectNoTimers proves that no deadline is pending, so no flush (and no
// notification) can happen until the next event.
func (r *mockRig) expectNoTimers(t *testing.T) {
	t.Helper()
	if d, ok := r.clock.Peek(); ok {
		t.Fatalf("a timer is pending in %v; want none", d)
	}
}

// barrier returns once every event sent before it has been fully handled:
// the fake's channel is unbuffered and the loop handles one event at a time,
// so this send completes only when the loop is back waiting for input. The
// event itself is for an entry nobody watches.
func (r *mockRig) barrier(t *testing.T) {
	t.Helper()
	r.fake.send(actorstest.Context(t), t, "/barrier/unwatched", fsnotify.Write)
}

// startBurst sends an event that must start a new burst and releases the
// trapped NewTimer("watcher", "debounce"), after which both deadlines exist.
func (r *mockRig) startBurst(t *testing.T, start *quartz.Trap, name string, op fsnotify.Op) {
	t.Helper()
	ctx := actorstest.Context(t)
	r.fake.send(ctx, t, name, op)
	call := start.MustWait(ctx)
	if call.Duration != watcher.DefaultDebounce {
		t.Errorf("debounce armed for %v, want %v", call.Duration, watcher.DefaultDebounce)
	}
	call.MustRelease(ctx)
}

func TestWatcher_BurstGivesOneNotification(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := tempDir(t)
	cfg := filepath.Join(dir, "config.json")
	writeFile(t, cfg, "v0")

	r := newMockRig(t)
	start := r.clock.Trap().NewTimer("watcher", "debounce")
	defer start.Close()
	extend := r.clock.Trap().TimerReset("watcher", "debounce")
	defer extend.Close()
	r.start(t, cfg)

	writeFile(t, cfg, "v1")
	r.startBurst(t, start, cfg, fsnotify.Create)
	// Four more events, 20ms apart: each pushes the quiet deadline out.
	for range 4 {
		r.clock.Advance(20 * time.Millisecond).MustWait(ctx)
		r.fake.send(ctx, t, cfg, fsnotify.Write)
		call := extend.MustWait(ctx)
		if call.Duration != watcher.DefaultDebounce {
			t.Errorf("debounce re-armed for %v, want %v", call.Duration, watcher.DefaultDebounce)
		}
		call.MustRelease(ctx)
	}
	r.rec.expectNoChangeYet(t) // no deadline has been reached yet

	if d := r.advanceToNext(t); d != watcher.DefaultDebounce {
		t.Errorf("notified %v after the last event, want %v", d, watcher.DefaultDebounce)
	}
	r.rec.expectChange(ctx, t, cfg)
	// Both deadlines stopped when the burst ended: that was the only one.
	r.expectNoTimers(t)
	if adds, _ := r.fake.calls(); !cmp.Equal(adds, []string{dir}) {
		t.Errorf("watched %v, want only the parent directory %s", adds, dir)
	}
}

func TestWatcher_ContinuousChurnNotifiesAtMaxWait(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(tempDir(t), "config.json")

	r := newMockRig(t)
	deadline := r.clock.Trap().NewTimer("watcher", "maxwait")
	defer deadline.Close()
	start := r.clock.Trap().NewTimer("watcher", "debounce")
	defer start.Close()
	extend := r.clock.Trap().TimerReset("watcher", "debounce")
	defer extend.Close()
	r.start(t, cfg)
	began := r.clock.Now()

	writeFile(t, cfg, "v1")
	r.fake.send(ctx, t, cfg, fsnotify.Create)
	call := deadline.MustWait(ctx)
	if call.Duration != watcher.DefaultMaxWait {
		t.Errorf("max wait armed for %v, want %v", call.Duration, watcher.DefaultMaxWait)
	}
	call.MustRelease(ctx)
	start.MustWait(ctx).MustRelease(ctx)

	// An event every 50ms never leaves a 100ms quiet window.
	for r.clock.Since(began) < watcher.DefaultMaxWait-50*time.Millisecond {
		r.clock.Advance(50 * time.Millisecond).MustWait(ctx)
		r.fake.send(ctx, t, cfg, fsnotify.Write)
		extend.MustWait(ctx).MustRelease(ctx)
	}
	r.rec.expectNoChangeYet(t) // no deadline has been reached yet

	// The hard deadline (2s) comes before the quiet one (2.05s).
	if d := r.advanceToNext(t); d != 50*time.Millisecond {
		t.Errorf("next deadline in %v, want 50ms", d)
	}
	if got := r.clock.Since(began); got != watcher.DefaultMaxWait {
		t.Errorf("notified %v after the first event, want %v", got, watcher.DefaultMaxWait)
	}
	r.rec.expectChange(ctx, t, cfg)
	r.expectNoTimers(t)
}

func TestWatcher_SecondBurstGivesSecondNotification(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(tempDir(t), "config.json")
	writeFile(t, cfg, "v0")

	r := newMockRig(t)
	start := r.clock.Trap().NewTimer("watcher", "debounce")
	defer start.Close()
	r.start(t, cfg)

	writeFile(t, cfg, "v1")
	r.startBurst(t, start, cfg, fsnotify.Write)
	r.advanceToNext(t)
	r.rec.expectChange(ctx, t, cfg)
	r.expectNoTimers(t)

	writeFile(t, cfg, "v2")
	r.startBurst(t, start, cfg, fsnotify.Write) // a new burst, not an extension
	r.advanceToNext(t)
	r.rec.expectChange(ctx, t, cfg)
	r.expectNoTimers(t)
}

func TestWatcher_UnchangedContentIsSilent(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := tempDir(t)
	same := filepath.Join(dir, "same.json")
	absent := filepath.Join(dir, "absent.json")
	changed := filepath.Join(dir, "changed.json")
	writeFile(t, same, "v0")
	writeFile(t, changed, "v0")

	r := newMockRig(t)
	start := r.clock.Trap().NewTimer("watcher", "debounce")
	defer start.Close()
	// A burst ends by stopping its hard deadline: trapping that call tells
	// the test that a flush which notifies nobody has happened.
	ended := r.clock.Trap().TimerStop("watcher", "maxwait")
	defer ended.Close()
	r.start(t, same, absent, changed)

	// Rewritten with identical bytes, chmod-ed, and a file that stays absent:
	// the burst ends and reads them, but nothing differs from the baseline.
	writeFile(t, same, "v0")
	r.startBurst(t, start, same, fsnotify.Write)
	r.fake.send(ctx, t, same, fsnotify.Chmod)
	r.fake.send(ctx, t, absent, fsnotify.Remove)
	r.barrier(t) // the Remove above has been handled (its Reset is done)
	r.advanceToNext(t)
	ended.MustWait(ctx).MustRelease(ctx)
	r.expectNoTimers(t)

	// The next notification must name only the path that did change. Had
	// the first burst notified, its paths would come first (or be merged).
	writeFile(t, changed, "v1")
	r.startBurst(t, start, changed, fsnotify.Write)
	r.advanceToNext(t)
	ended.MustWait(ctx).MustRelease(ctx)
	r.rec.expectChange(ctx, t, changed)
}

func TestWatcher_AppearingAndDisappearingAreChanges(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(tempDir(t), "config.json")

	r := newMockRig(t)
	start := r.clock.Trap().NewTimer("watcher", "debounce")
	defer start.Close()
	r.start(t, cfg)

	writeFile(t, cfg, "")
	r.startBurst(t, start, cfg, fsnotify.Create)
	r.advanceToNext(t)
	r.rec.expectChange(ctx, t, cfg) // absent -> exists (even empty)

	if err := syscall.Unlink(cfg); err != nil {
		t.Fatal(err)
	}
	r.startBurst(t, start, cfg, fsnotify.Remove)
	r.advanceToNext(t)
	r.rec.expectChange(ctx, t, cfg) // exists -> absent
}

func TestWatcher_UnrelatedEntriesDoNotStartABurst(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := tempDir(t)
	cfg := filepath.Join(dir, "config.json")

	r := newMockRig(t)
	start := r.clock.Trap().NewTimer("watcher", "debounce")
	defer start.Close()
	extend := r.clock.Trap().TimerReset("watcher", "debounce")
	defer extend.Close() // never waited on: a Reset here would hang the test
	r.start(t, cfg)

	for _, ev := range []fsnotify.Event{
		{Name: filepath.Join(dir, "config.json.swp"), Op: fsnotify.Create},
		{Name: filepath.Join(dir, "other.json"), Op: fsnotify.Write},
		{Name: filepath.Join(dir, "sub", "config.json"), Op: fsnotify.Write},
		{Name: "/elsewhere/config.json", Op: fsnotify.Remove},
	} {
		r.fake.send(ctx, t, ev.Name, ev.Op)
	}
	// The relevant event must start the burst (NewTimer). Had an unrelated
	// one started it, this would be a Reset instead and start would time out.
	writeFile(t, cfg, "v1")
	r.startBurst(t, start, cfg, fsnotify.Create)
	r.advanceToNext(t)
	r.rec.expectChange(ctx, t, cfg)
}

func TestWatcher_OverflowNotifiesEveryPath(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := tempDir(t)
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	missing := filepath.Join(dir, "missing.json")
	writeFile(t, a, "a")
	writeFile(t, b, "b")

	r := newMockRig(t)
	start := r.clock.Trap().NewTimer("watcher", "debounce")
	defer start.Close()
	r.start(t, a, b, missing)

	r.fake.sendError(ctx, t, fsnotify.ErrEventOverflow)
	call := start.MustWait(ctx)
	call.MustRelease(ctx)
	r.advanceToNext(t)
	// Nothing changed on disk, but lost events mean the consumer must re-read.
	r.rec.expectChange(ctx, t, a, b, missing)
	r.expectNoTimers(t)
	// The directory was watched afresh: a replaced one would be picked up.
	if adds, _ := r.fake.calls(); !cmp.Equal(adds, []string{dir, dir}) {
		t.Errorf("Add calls %v, want the directory twice (initial, after overflow)", adds)
	}
}

func TestWatcher_PollsWhenNotifierCannotBeCreated(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := tempDir(t)
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")

	r := newMockRig(t)
	opts := r.options(t)
	opts.NewNotifier = func() (watcher.Notifier, error) {
		return nil, errors.New("injected: too many open files")
	}
	r.startWith(t, opts, a, b) // New succeeds anyway

	if reason := r.rec.expectDegraded(ctx, t); !strings.Contains(reason, "injected") {
		t.Errorf("degraded reason %q does not say why", reason)
	}
	writeFile(t, a, "v1")
	if d := r.advanceToNext(t); d != watcher.DefaultPollInterval {
		t.Errorf("polled after %v, want %v", d, watcher.DefaultPollInterval)
	}
	r.rec.expectChange(ctx, t, a)

	// Ticks with nothing new are silent: the next notification is b alone.
	r.advanceToNext(t)
	writeFile(t, b, "v1")
	r.advanceToNext(t)
	r.rec.expectChange(ctx, t, b)
}

func TestWatcher_PollsWhenAWatchCannotBeAdded(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(tempDir(t), "config.json")

	r := newMockRig(t)
	r.fake.addErr = syscall.ENOSPC // inotify's "max_user_watches reached"
	r.start(t, cfg)

	if reason := r.rec.expectDegraded(ctx, t); !strings.Contains(reason, syscall.ENOSPC.Error()) {
		t.Errorf("degraded reason %q does not say why", reason)
	}
	select {
	case <-r.fake.closed: // the Notifier and its descriptor were released
	case <-ctx.Done():
		t.Fatal("notifier not closed after falling back to polling")
	}
	writeFile(t, cfg, "v1")
	r.advanceToNext(t)
	r.rec.expectChange(ctx, t, cfg)
}

func TestWatcher_PollsWhenNotifierStops(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(tempDir(t), "config.json")

	r := newMockRig(t)
	r.start(t, cfg)
	close(r.fake.events) // the event source died

	if reason := r.rec.expectDegraded(ctx, t); !strings.Contains(reason, "event channel") {
		t.Errorf("degraded reason %q does not say why", reason)
	}
	writeFile(t, cfg, "v1")
	r.advanceToNext(t)
	r.rec.expectChange(ctx, t, cfg)
}

func TestWatcher_SyncReleasesWatchesNobodyNeeds(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	root := tempDir(t)
	shared, alone := filepath.Join(root, "shared"), filepath.Join(root, "alone")
	a, b := filepath.Join(shared, "a.json"), filepath.Join(shared, "b.json")
	c := filepath.Join(alone, "c.json")
	for _, d := range []string{shared, alone} {
		if err := syscall.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	r := newMockRig(t)
	start := r.clock.Trap().NewTimer("watcher", "debounce")
	defer start.Close()
	r.start(t, a, b, c)
	adds, removes := r.fake.calls()
	if len(removes) != 0 {
		t.Errorf("watches removed at start: %v", removes)
	}
	if diff := cmp.Diff([]string{alone, shared}, slices.Sorted(slices.Values(adds))); diff != "" {
		t.Errorf("one watch per directory (-want +got):\n%s", diff)
	}

	// b still needs shared; nobody needs alone.
	if err := r.w.Sync([]string{b}); err != nil {
		t.Fatal(err)
	}
	_, removes = r.fake.calls()
	if diff := cmp.Diff([]string{alone}, removes); diff != "" {
		t.Errorf("removed watches (-want +got):\n%s", diff)
	}

	// a is no longer configured: its events are ignored; b's still count.
	writeFile(t, a, "v1")
	r.fake.send(ctx, t, a, fsnotify.Create)
	writeFile(t, b, "v1")
	r.startBurst(t, start, b, fsnotify.Create)
	r.advanceToNext(t)
	r.rec.expectChange(ctx, t, b)

	if err := r.w.Sync(nil); err != nil {
		t.Fatal(err)
	}
	_, removes = r.fake.calls()
	if diff := cmp.Diff([]string{alone, shared}, removes); diff != "" {
		t.Errorf("removed watches (-want +got):\n%s", diff)
	}
}

func TestWatcher_RejectsRelativePaths(t *testing.T) {
	t.Parallel()
	if _, err := watcher.New([]string{"config.json"}, watcher.Options{}); err == nil {
		t.Error("New accepted a relative path")
	}
	if _, err := watcher.New([]string{"/"}, watcher.Options{}); err == nil {
		t.Error("New accepted a path naming no file")
	}

	r := newMockRig(t)
	r.start(t)
	if err := r.w.Sync([]string{"./config.json"}); err == nil {
		t.Error("Sync accepted a relative path")
	}
}

func TestWatcher_CloseIsIdempotentAndEndsSync(t *testing.T) {
	t.Parallel()
	r := newMockRig(t)
	r.start(t, filepath.Join(tempDir(t), "config.json"))
	for range 2 {
		if err := r.w.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if err := r.w.Sync(nil); !errors.Is(err, watcher.ErrClosed) {
		t.Errorf("Sync after Close = %v, want ErrClosed", err)
	}
	select {
	case <-r.fake.closed:
	default:
		t.Error("Close returned before closing the notifier")
	}
}

func TestWatcher_CloseDoesNotWaitForABlockedCallback(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(tempDir(t), "config.json")

	r := newMockRig(t)
	start := r.clock.Trap().NewTimer("watcher", "debounce")
	defer start.Close()
	entered, release := make(chan []string, 10), make(chan struct{})
	opts := r.options(t)
	opts.OnChange = func(paths []string) {
		entered <- paths
		<-release // a consumer that is not reading
	}
	r.startWith(t, opts, cfg)

	writeFile(t, cfg, "v1")
	r.startBurst(t, start, cfg, fsnotify.Write)
	r.advanceToNext(t)
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("OnChange not called")
	}

	// A second change is reported while the callback is blocked.
	writeFile(t, cfg, "v2")
	r.startBurst(t, start, cfg, fsnotify.Write)
	r.advanceToNext(t)

	closed := make(chan error, 1)
	go func() { closed <- r.w.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close blocked on a blocked callback")
	}

	close(release)
	select {
	case <-r.w.Done():
	case <-ctx.Done():
		t.Fatal("watcher goroutines did not end after the callback returned")
	}
	// The second report (pending, or not yet flushed, when Close ran) is
	// never delivered.
	select {
	case got := <-entered:
		t.Fatalf("OnChange(%v) called after Close", got)
	default:
	}
}

func TestWatcher_CallbacksMayCallSyncAndClose(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := tempDir(t)
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")

	r := newMockRig(t)
	start := r.clock.Trap().NewTimer("watcher", "debounce")
	defer start.Close()
	var w *watcher.Watcher // set before any event can be delivered
	results := make(chan error, 2)
	opts := r.options(t)
	opts.OnChange = func([]string) {
		results <- w.Sync([]string{a, b}) // the loop never waits for us
		results <- w.Close()              // nor does Close
	}
	r.startWith(t, opts, a)
	w = r.w

	writeFile(t, a, "v1")
	r.startBurst(t, start, a, fsnotify.Write)
	r.advanceToNext(t)
	for _, what := range []string{"Sync", "Close"} {
		select {
		case err := <-results:
			if err != nil {
				t.Errorf("%s from OnChange: %v", what, err)
			}
		case <-ctx.Done():
			t.Fatalf("%s from OnChange deadlocked", what)
		}
	}
	select {
	case <-w.Done():
	case <-ctx.Done():
		t.Fatal("watcher goroutines did not end")
	}
}
