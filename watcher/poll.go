package watcher

import (
	"slices"
	"time"

	"go.uber.org/zap"
)

// Polling is the degraded mode. The watcher enters it when the kernel event
// source cannot be used: the Notifier could not be created, a directory could
// not be watched for any reason other than having vanished (inotify watch or
// instance limits, a file system without inotify support, permissions, an
// injected failure), or the Notifier stopped delivering. It is all or
// nothing: a watcher with one unwatchable directory polls every path, because
// a half-watched path set is harder to reason about than a slower one.
//
// While polling, a quartz ticker (tags "watcher", "poll") fires every
// PollInterval and the loop reads every configured path's state (existence,
// type and content hash) and notifies the ones that differ from the last
// look. Nothing is lost on the way in: the states compared against are the
// ones the event path last saw, so a change missed by the broken watches is a
// difference at the first tick. There is no way back to events; a watcher
// stays degraded until Close.
//
// While inotify works there is no ticker at all: an idle watcher costs no CPU.

// polling reports whether the watcher has degraded to polling.
func (w *Watcher) polling() bool { return w.poll != nil }

// degrade switches to polling. It releases the Notifier (its file descriptor
// and every kernel watch) at once, and tells the consumer why through
// OnDegraded. Safe to call more than once; only the first call counts.
func (w *Watcher) degrade(reason string) {
	if w.polling() {
		return
	}
	w.log.Warn("falling back to polling",
		zap.String("reason", reason), zap.Duration("interval", w.pollInterval))
	w.closeNotifier()
	w.dirs = newDirTable()
	for _, tp := range w.tracked {
		tp.interests = nil
	}
	w.poll = w.clock.NewTicker(w.pollInterval, "watcher", "poll")
	w.out.postDegraded(reason)
}

// pollC ticks while polling; nil (blocks forever) otherwise.
func (w *Watcher) pollC() <-chan time.Time {
	if w.poll == nil {
		return nil
	}
	return w.poll.C
}

// pollOnce reads every configured path and notifies the ones that changed.
// No debounce: the tick interval already coalesces.
func (w *Watcher) pollOnce() {
	changed := w.scratch[:0]
	for p, tp := range w.tracked {
		if st := readState(p); st != tp.state {
			tp.state = st
			changed = append(changed, p)
		}
	}
	w.scratch = changed[:0]
	if len(changed) > 0 {
		w.log.Debug("poll found changes", zap.Strings("paths", slices.Clone(changed))) // changed is reused scratch
		w.out.postChanged(changed)
	}
}
