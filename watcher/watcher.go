package watcher

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/coder/quartz"
	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"
)

// Defaults for the zero Options.
const (
	DefaultDebounce     = 100 * time.Millisecond
	DefaultMaxWait      = 2 * time.Second
	DefaultPollInterval = 2 * time.Second
)

// ErrClosed is returned by Sync after Close.
var ErrClosed = errors.New("watcher: closed")

// Options configures a Watcher. The zero value is usable.
type Options struct {
	// Clock drives the debounce timers and the polling ticker. nil means
	// quartz.NewReal().
	Clock quartz.Clock
	// Logger receives the watcher's logs under the name "watcher". nil
	// means zap.NewNop().
	Logger *zap.Logger
	// Debounce is the quiet window: a notification comes this long after
	// the last event of a burst. Zero means DefaultDebounce.
	Debounce time.Duration
	// MaxWait bounds the wait from the first event of a burst to its
	// notification, so continuous churn still notifies. Zero means
	// DefaultMaxWait.
	MaxWait time.Duration
	// PollInterval is the period of the polling fallback. Zero means
	// DefaultPollInterval.
	PollInterval time.Duration

	// OnChange is called with the configured paths that may have changed:
	// sorted, deduplicated and spelled exactly as configured; the slice is
	// the callee's to keep. It runs on
	// the watcher's delivery goroutine, never concurrently with itself or
	// with OnDegraded, and never starts after Close returns (see the
	// package documentation for the exact Close contract). It may call
	// Sync and Close.
	OnChange func(paths []string)
	// OnDegraded is called once if the watcher falls back to polling;
	// reason says why. Same goroutine and rules as OnChange.
	OnDegraded func(reason string)

	// NewNotifier creates the kernel event source. nil means
	// NewFSNotifier. It is a test seam: return an error to force the
	// polling fallback, or a fake to inject events, overflow and
	// failing watches. It is called once, by New.
	NewNotifier func() (Notifier, error)
}

// Watcher reports when configured files may have changed. Create one with New
// and release it with Close. Its methods are safe for concurrent use.
type Watcher struct {
	clock        quartz.Clock
	log          *zap.Logger
	pollInterval time.Duration

	// State below is owned by New until it starts the loop goroutine, and
	// by the loop goroutine afterwards. Nothing else touches it.
	notifier  Notifier // nil once closed or degraded
	events    <-chan fsnotify.Event
	errs      <-chan error
	dirs      dirTable
	tracked   map[string]*trackedPath // by configured path
	dirty     map[string]struct{}     // configured paths touched in the current burst
	rescanAll bool                    // overflow: the next flush notifies every path
	burst     debouncer
	poll      *quartz.Ticker // non-nil once degraded to polling
	scratch   []string       // reused by the per-event and per-flush paths
	closeErr  error          // from closing the Notifier; read by Close after loopDone

	out       *delivery
	syncs     chan syncRequest
	quit      chan struct{} // closed by Close: the loop exits
	loopDone  chan struct{} // closed when the loop goroutine has exited
	done      chan struct{} // closed when every goroutine has exited
	closeOnce sync.Once
}

// trackedPath is the loop's record of one configured path.
type trackedPath struct {
	interests []interest // what it is watched through; nil while polling
	state     fileState  // what it read as at the last look
}

type syncRequest struct {
	paths []string
	done  chan struct{}
}

// New starts watching paths, which must be absolute. It returns once every
// directory watch is in place and every path's current state is recorded, so
// any change after New returns is reported. Read the files after New returns.
//
// New does not fail because of the environment: if inotify cannot be used it
// returns a watcher that polls, and reports why through OnDegraded. It fails
// only for invalid paths.
func New(paths []string, opts Options) (*Watcher, error) {
	set, err := normalize(paths)
	if err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = quartz.NewReal()
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = DefaultMaxWait
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.NewNotifier == nil {
		opts.NewNotifier = NewFSNotifier
	}

	w := &Watcher{
		clock:        opts.Clock,
		log:          opts.Logger.Named("watcher"),
		pollInterval: opts.PollInterval,
		dirs:         newDirTable(),
		tracked:      map[string]*trackedPath{},
		dirty:        map[string]struct{}{},
		burst:        debouncer{clock: opts.Clock, quiet: opts.Debounce, maxWait: opts.MaxWait},
		out:          newDelivery(opts.OnChange, opts.OnDegraded),
		syncs:        make(chan syncRequest),
		quit:         make(chan struct{}),
		loopDone:     make(chan struct{}),
		done:         make(chan struct{}),
	}
	if n, err := opts.NewNotifier(); err != nil {
		w.degrade(fmt.Sprintf("no notifier: %v", err))
	} else {
		w.notifier, w.events, w.errs = n, n.Events(), n.Errors()
	}
	for _, p := range set {
		w.track(p)
	}

	go w.run()
	go func() {
		w.out.run()
		<-w.loopDone
		close(w.done)
	}()
	return w, nil
}

// Sync replaces the configured paths. Paths no longer configured stop being
// reported and their watches are released when nobody else needs them; new
// paths are watched and their current state recorded before Sync returns, so
// Sync itself does not report them. It fails only for invalid paths, or with
// ErrClosed after Close.
func (w *Watcher) Sync(paths []string) error {
	set, err := normalize(paths)
	if err != nil {
		return err
	}
	req := syncRequest{paths: set, done: make(chan struct{})}
	select {
	case w.syncs <- req:
	case <-w.quit:
		return ErrClosed
	}
	// The loop handles a request it accepted before it can exit.
	<-req.done
	return nil
}

// Close stops the watcher and releases its watches and file descriptor. It
// is idempotent and returns promptly even while a callback is blocked; see
// the package documentation for exactly what it waits for.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		// First: no callback is dispatched from here on.
		w.out.stop()
		close(w.quit)
		<-w.loopDone
	})
	return w.closeErr
}

// Done is closed when every goroutine of the watcher has returned, including
// a callback that was still running when Close returned. Close does not wait
// for such a callback; a caller that knows the callback cannot be blocked on
// it may wait for Done after Close.
func (w *Watcher) Done() <-chan struct{} { return w.done }

// run is the loop goroutine: the only one that touches the watch table, the
// tracked paths and the timers.
func (w *Watcher) run() {
	defer close(w.loopDone)
	defer w.shutdown()
	for {
		select {
		case <-w.quit:
			return
		case ev, ok := <-w.events:
			if !ok {
				w.degrade("notifier closed its event channel")
				continue
			}
			w.handleEvent(ev)
		case err, ok := <-w.errs:
			if !ok {
				w.degrade("notifier closed its error channel")
				continue
			}
			w.handleError(err)
		case <-w.burst.quietC():
			w.flush()
		case <-w.burst.hardC():
			w.flush()
		case <-w.pollC():
			w.pollOnce()
		case req := <-w.syncs:
			w.sync(req.paths)
			close(req.done)
		}
	}
}

// shutdown releases everything the loop owns. Runs on the loop goroutine as
// it exits.
func (w *Watcher) shutdown() {
	w.burst.end()
	if w.poll != nil {
		w.poll.Stop("watcher", "poll")
	}
	w.closeNotifier()
}

// closeNotifier closes the Notifier (ending its goroutine and releasing its
// file descriptor and watches) and stops selecting on its channels, so their
// closing is not mistaken for a failure.
func (w *Watcher) closeNotifier() {
	if w.notifier == nil {
		return
	}
	if err := w.notifier.Close(); err != nil {
		w.closeErr = errors.Join(w.closeErr, fmt.Errorf("close notifier: %w", err))
	}
	w.notifier, w.events, w.errs = nil, nil, nil
}

// handleEvent maps one kernel event to the configured paths it may affect.
// Events for entries nobody is interested in cost a few map lookups and are
// otherwise ignored: they neither notify nor start a debounce timer.
func (w *Watcher) handleEvent(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name) // fsnotify spells entries of "/" as "//x"
	// Entry-name changes can change what a path resolves to; writes and
	// attribute changes cannot.
	structural := ev.Op&(fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0

	affected := w.scratch[:0]
	if ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 {
		// name may be a watched directory that was deleted or moved.
		affected = append(affected, w.retireDir(name)...)
	}
	for p := range w.dirs.subscribersOf(filepath.Dir(name), filepath.Base(name)) {
		affected = append(affected, p)
	}
	w.scratch = affected[:0]
	if len(affected) == 0 {
		return
	}
	for _, p := range affected {
		if structural {
			// Resolve again: a symlink may point elsewhere now, a missing
			// level may have appeared, a watched directory may be gone.
			w.rearm(p)
		}
		w.dirty[p] = struct{}{}
	}
	w.burst.touch()
}

// handleError reacts to an asynchronous Notifier error. Any of them may mean
// lost events, so every directory is re-armed (Add again picks up a directory
// replaced unseen) and every path is rescanned. An overflow additionally
// notifies every path, whatever its content: the consumer should re-read all.
func (w *Watcher) handleError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.log.Warn("event queue overflowed; rescanning every path")
		w.rescanAll = true
	} else {
		w.log.Warn("notifier error; rescanning every path", zap.Error(err))
	}
	for dir := range w.dirs.byDir {
		w.dirs.disarm(dir)
	}
	for p := range w.tracked {
		w.rearm(p)
		w.dirty[p] = struct{}{}
	}
	w.burst.touch()
}

// flush ends a burst: it reads every dirty path and notifies those whose
// state differs from the last look (all of them after an overflow).
func (w *Watcher) flush() {
	w.burst.end()
	changed := w.scratch[:0]
	for p := range w.dirty {
		tp := w.tracked[p]
		if tp == nil {
			continue // removed by Sync during the burst
		}
		st := readState(p)
		if st != tp.state || w.rescanAll {
			tp.state = st
			changed = append(changed, p)
		}
	}
	if w.rescanAll {
		for p, tp := range w.tracked {
			if _, seen := w.dirty[p]; !seen {
				tp.state = readState(p)
				changed = append(changed, p)
			}
		}
	}
	clear(w.dirty)
	w.rescanAll = false
	w.scratch = changed[:0]
	if len(changed) == 0 {
		return
	}
	w.log.Debug("paths changed", zap.Strings("paths", slices.Clone(changed))) // changed is reused scratch
	w.out.postChanged(changed)
}

// sync applies a Sync request on the loop goroutine.
func (w *Watcher) sync(paths []string) {
	for p, tp := range w.tracked {
		if _, keep := slices.BinarySearch(paths, p); !keep {
			w.releaseAll(p, tp)
			delete(w.tracked, p)
			delete(w.dirty, p)
		}
	}
	for _, p := range paths {
		if w.tracked[p] == nil {
			w.track(p)
		}
	}
}

// track starts watching p and records its current state as the baseline.
// The watch goes first: a change between the two is then either in the
// baseline or seen as an event.
func (w *Watcher) track(p string) {
	tp := &trackedPath{}
	w.tracked[p] = tp
	w.rearm(p)
	tp.state = readState(p)
}

// normalize validates configured paths and returns them sorted and
// deduplicated. Paths are kept as spelled, so OnChange reports them exactly
// as the caller configured them, and read through the kernel's own rules.
func normalize(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("watcher: path %q is not absolute", p)
		}
		if filepath.Clean(p) == "/" {
			return nil, fmt.Errorf("watcher: path %q names no file", p)
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
