package journal

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Live, as Follow's since, follows only the events published after the
// call.
const Live = ^uint64(0)

// Feed is one follower of a journal: it delivers on C every event after
// the sequence number it started from, in order, with no gap and no
// duplicate, then every live event as it is published.
//
// A feed never drops an event and never blocks the publisher: events wait
// in the journal, not in the feed, and the feed's goroutine copies them
// to C as fast as the reader takes them. A reader that falls so far
// behind that the journal no longer keeps what it has not read yet gets,
// in their place, one envelope with Seq 0 carrying a
// *messages.FeedTruncated (what was lost, where it goes on), and then the
// oldest events still kept: the feed recovers by itself. The same notice
// starts a feed whose since is beyond the newest event (a sequence number
// from an earlier run, whose numbers began again): it replays everything
// kept.
//
// C is closed by Close, or once the journal is closed (the Supervisor
// closed) and every event was delivered. The reader must read C until it
// is closed or call Close: the feed's goroutine waits for one or the
// other.
type Feed struct {
	// C delivers the events.
	C <-chan *messages.Envelope

	j       *Journal
	ch      chan *messages.Envelope
	last    uint64             // sequence number of the newest event delivered
	pending *messages.Envelope // a notice to deliver first
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once

	finish     chan struct{} // closed by Finish
	finishOnce sync.Once
	finishAt   atomic.Uint64 // the newest event when Finish was called
}

// feedBatch is how many events a feed copies out of the journal at once.
const feedBatch = 64

// Follow starts a feed of the events after since (0: every kept event;
// Live: only those published from now on). buffer is how many events C
// holds before the feed waits for the reader (at least 1).
func (j *Journal) Follow(since uint64, buffer int) *Feed {
	ch := make(chan *messages.Envelope, max(buffer, 1))
	f := &Feed{C: ch, j: j, ch: ch, stop: make(chan struct{}), done: make(chan struct{}), finish: make(chan struct{})}
	j.mu.Lock()
	switch {
	case since == Live:
		f.last = j.seq
	case since > j.seq:
		f.pending = j.notice(since, 0, fmt.Sprintf("no event %d yet: mcpvisor restarted and its sequence numbers began again", since))
		f.last = j.oldest() - 1 // everything kept, and one notice only
	case j.oldest() > since+1:
		f.pending = j.notice(since, since, "older events are no longer kept")
		f.last = j.oldest() - 1
	default:
		f.last = since
	}
	j.mu.Unlock()
	j.countFollower(1)
	go f.run()
	return f
}

// notice is a FeedTruncated envelope for a feed that goes on after last.
// j.mu must be held.
func (j *Journal) notice(since, last uint64, reason string) *messages.Envelope {
	next := j.oldest()
	if next <= last {
		next = last + 1
	}
	return &messages.Envelope{Time: j.opts.Now(), Event: &messages.FeedTruncated{Since: since, Next: next, Reason: reason}}
}

func (f *Feed) run() {
	defer close(f.done)
	defer f.j.countFollower(-1)
	defer close(f.ch)
	if f.pending != nil && !f.send(f.pending) {
		return
	}
	buf := make([]*messages.Envelope, 0, feedBatch)
	for {
		notice, batch, wake, closed := f.next(buf[:0])
		if notice != nil && !f.send(notice) {
			return
		}
		for _, env := range batch {
			if f.beyondFinish(env) || !f.send(env) {
				return
			}
			f.last = env.Seq
		}
		clear(batch)
		if f.finished() {
			return
		}
		if len(batch) > 0 {
			continue
		}
		if closed {
			return
		}
		select {
		case <-wake:
		case <-f.finish:
		case <-f.stop:
			return
		}
	}
}

// next copies the events after f.last out of the journal. When there are
// none it returns the channel the next Publish (or Close) closes.
func (f *Feed) next(buf []*messages.Envelope) (notice *messages.Envelope, batch []*messages.Envelope, wake <-chan struct{}, closed bool) {
	j := f.j
	j.mu.Lock()
	defer j.mu.Unlock()
	if f.last < j.seq && j.oldest() > f.last+1 {
		notice = j.notice(f.last, f.last, "the follower fell behind and older events are no longer kept")
		f.last = j.oldest() - 1
	}
	batch = j.appendSince(buf, f.last, feedBatch)
	if len(batch) == 0 {
		if j.wake == nil {
			j.wake = make(chan struct{})
		}
		wake, closed = j.wake, j.closed
	}
	return notice, batch, wake, closed
}

// beyondFinish reports whether env came after a Finish.
func (f *Feed) beyondFinish(env *messages.Envelope) bool {
	select {
	case <-f.finish:
		return env.Seq > f.finishAt.Load()
	default:
		return false
	}
}

// finished reports whether Finish was called and everything it asked
// for was delivered.
func (f *Feed) finished() bool {
	select {
	case <-f.finish:
		return f.last >= f.finishAt.Load()
	default:
		return false
	}
}

// Finish ends the feed once it has delivered every event published
// before the call; C is closed after them. It does not wait: read C until
// it is closed (Close still ends the feed at once).
func (f *Feed) Finish() {
	f.finishOnce.Do(func() {
		f.finishAt.Store(f.j.Newest())
		close(f.finish)
	})
}

// send delivers env unless the feed is closed first.
func (f *Feed) send(env *messages.Envelope) bool {
	select {
	case f.ch <- env:
		return true
	case <-f.stop:
		return false
	}
}

// Close ends the feed, closes C and waits for the feed's goroutine. It is
// idempotent.
func (f *Feed) Close() {
	f.once.Do(func() { close(f.stop) })
	<-f.done
}
