package watcher

import (
	"time"

	"github.com/coder/quartz"
)

// debouncer turns a burst of events into one flush. A burst starts with its
// first event and ends at whichever comes first:
//
//   - the quiet deadline: Debounce after the latest event, or
//   - the hard deadline: MaxWait after the first event, so continuous churn
//     (a log file next to the config, an editor autosaving) still notifies.
//
// It is owned by the loop goroutine. Both deadlines are quartz channel timers
// that the loop selects on, not AfterFunc callbacks: nothing runs on another
// goroutine, and since Go 1.23 a Reset or Stop timer never delivers a stale
// value, so a fire always belongs to the current burst. Re-arming on every
// event is one Reset, with no allocation.
//
// Clock calls carry the tags ("watcher", "debounce") for the quiet deadline
// and ("watcher", "maxwait") for the hard one. A burst starts with
// NewTimer(maxwait) then NewTimer(debounce); each later event is one
// Timer.Reset(debounce). A test that traps NewTimer("watcher", "debounce")
// therefore knows both timers exist once it releases the call.
type debouncer struct {
	clock   quartz.Clock
	quiet   time.Duration
	maxWait time.Duration

	// Both nil between bursts.
	quietTimer *quartz.Timer
	hardTimer  *quartz.Timer
}

// touch records an event: it starts a burst, or pushes the quiet deadline out.
func (d *debouncer) touch() {
	if d.quietTimer == nil {
		d.hardTimer = d.clock.NewTimer(d.maxWait, "watcher", "maxwait")
		d.quietTimer = d.clock.NewTimer(d.quiet, "watcher", "debounce")
		return
	}
	d.quietTimer.Reset(d.quiet, "watcher", "debounce")
}

// quietC fires at the quiet deadline; nil (blocks forever) between bursts.
func (d *debouncer) quietC() <-chan time.Time {
	if d.quietTimer == nil {
		return nil
	}
	return d.quietTimer.C
}

// hardC fires at the hard deadline; nil (blocks forever) between bursts.
func (d *debouncer) hardC() <-chan time.Time {
	if d.hardTimer == nil {
		return nil
	}
	return d.hardTimer.C
}

// end stops the burst's timers. The next touch starts a new burst.
func (d *debouncer) end() {
	if d.quietTimer == nil {
		return
	}
	d.quietTimer.Stop("watcher", "debounce")
	d.hardTimer.Stop("watcher", "maxwait")
	d.quietTimer, d.hardTimer = nil, nil
}
