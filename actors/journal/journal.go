package journal

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Journal gives every event a sequence number in one total order, keeps
// the newest ones for replay, bounded in count and in bytes, and delivers
// them to followers (Follow) without a gap or a duplicate.
//
// Publish is called from actors' Receive and never blocks on a consumer:
// the sequence number is taken, the event kept and the optional stream
// published under one mutex, so numbers and delivery order agree. A
// Supervisor owns one; fakes of a fleet (httpapitest) use one too, so that
// every follower of mcpvisor's events runs the same code.
type Journal struct {
	opts Options

	mu        sync.Mutex
	seq       uint64 // of the newest event
	ring      []keptEvent
	head      int // index in ring of the oldest kept event
	n         int // events kept
	bytes     int // their estimated size
	wake      chan struct{}
	closed    bool
	followers int // open feeds
}

// Options configure a Journal. The zero value is usable.
type Options struct {
	// MaxEvents and MaxBytes bound what is kept for replay (defaults 4096
	// events, 8 MiB as JSON); the oldest go first. The newest event is
	// kept whatever its size.
	MaxEvents, MaxBytes int
	// Now stamps each event; default time.Now.
	Now func() time.Time
	// Stream, if set, receives every envelope too, on the publisher's
	// goroutine (a Supervisor passes its actor system's event stream). A
	// panic in it is logged to Logger and the event kept: a subscriber
	// never fails the actor that published.
	Stream interface{ Publish(any) }
	Logger *zap.Logger
	// OnFollowers, if set, is called with the number of open feeds each
	// time a feed starts or ends (tests wait on it), on the goroutine that
	// started or ended it, with no lock held.
	OnFollowers func(open int)
}

// Default journal bounds.
const (
	DefaultEvents = 4096
	DefaultBytes  = 8 << 20
)

// eventOverhead is what an envelope costs beyond its event's JSON: the
// envelope, its time and the slot in the ring.
const eventOverhead = 96

type keptEvent struct {
	env  *messages.Envelope
	size int
}

// New returns an empty journal.
func New(opts Options) *Journal {
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = DefaultEvents
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &Journal{opts: opts, ring: make([]keptEvent, opts.MaxEvents)}
}

// Publish stamps ev with the next sequence number, keeps it and wakes
// every follower. It never blocks on a consumer.
func (j *Journal) Publish(ev messages.Event) *messages.Envelope {
	size := eventSize(ev) // outside the lock: it encodes the event
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	env := &messages.Envelope{Seq: j.seq, Time: j.opts.Now(), Event: ev}
	j.keep(keptEvent{env: env, size: size})
	if j.wake != nil {
		close(j.wake)
		j.wake = nil
	}
	if j.opts.Stream != nil {
		j.publishStream(env)
	}
	return env
}

// publishStream hands env to the event stream's subscribers, which run
// here, on the publisher's goroutine.
func (j *Journal) publishStream(env *messages.Envelope) {
	defer func() {
		if v := recover(); v != nil {
			j.opts.Logger.Error("event stream subscriber panicked; the event is kept in the journal",
				zap.Uint64("seq", env.Seq), zap.String("event", env.Event.EventType()), zap.String("panic", fmt.Sprint(v)))
		}
	}()
	j.opts.Stream.Publish(env)
}

// Followers is the number of open feeds.
func (j *Journal) Followers() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.followers
}

// countFollower adds delta to the open feeds and reports the new count.
func (j *Journal) countFollower(delta int) {
	j.mu.Lock()
	j.followers += delta
	n := j.followers
	j.mu.Unlock()
	if j.opts.OnFollowers != nil {
		j.opts.OnFollowers(n)
	}
}

// keep appends e and drops the oldest events until both bounds hold again
// (the newest always stays).
func (j *Journal) keep(e keptEvent) {
	if j.n == len(j.ring) {
		j.dropOldest()
	}
	j.ring[(j.head+j.n)%len(j.ring)] = e
	j.n++
	j.bytes += e.size
	for j.n > 1 && j.bytes > j.opts.MaxBytes {
		j.dropOldest()
	}
}

func (j *Journal) dropOldest() {
	j.bytes -= j.ring[j.head].size
	j.ring[j.head] = keptEvent{}
	j.head = (j.head + 1) % len(j.ring)
	j.n--
}

// eventSize estimates what keeping ev costs: its JSON encoding, as the
// HTTP API serves it, plus a fixed overhead.
func eventSize(ev messages.Event) int {
	b, err := json.Marshal(ev)
	if err != nil {
		return eventOverhead
	}
	return len(b) + eventOverhead
}

// oldest is the sequence number of the oldest kept event (seq+1 if none).
// j.mu must be held.
func (j *Journal) oldest() uint64 {
	if j.n == 0 {
		return j.seq + 1
	}
	return j.ring[j.head].env.Seq
}

// Since returns the kept events with a sequence number above seq, oldest
// first, and whether any event after seq was already dropped.
func (j *Journal) Since(seq uint64) (events []*messages.Envelope, truncated bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.appendSince(nil, seq, j.n), seq < j.seq && j.oldest() > seq+1
}

// Newest is the sequence number of the newest event, 0 if none.
func (j *Journal) Newest() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seq
}

// Kept reports how many events the journal keeps and their estimated size
// in bytes.
func (j *Journal) Kept() (events, bytes int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.n, j.bytes
}

// appendSince appends up to max kept events after seq to out. j.mu must
// be held.
func (j *Journal) appendSince(out []*messages.Envelope, seq uint64, max int) []*messages.Envelope {
	first := j.oldest()
	if seq >= j.seq {
		if out == nil {
			out = []*messages.Envelope{}
		}
		return out
	}
	skip := 0
	if seq >= first {
		skip = int(seq - first + 1)
	}
	count := min(j.n-skip, max)
	if out == nil {
		out = make([]*messages.Envelope, 0, count)
	}
	for i := range count {
		out = append(out, j.ring[(j.head+skip+i)%len(j.ring)].env)
	}
	return out
}

// Close ends every feed once it has delivered the events kept so far.
// Events published after Close are still kept but no longer followed.
func (j *Journal) Close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	if j.wake != nil {
		close(j.wake)
		j.wake = nil
	}
}
