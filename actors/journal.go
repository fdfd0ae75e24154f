package actors

import (
	"sync"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/messages"
)

// journal gives every event a sequence number in one total order, keeps the
// newest ones in a ring for replay and publishes them on the actor system's
// event stream.
//
// Actors call publish from their own Receive. The sequence number is taken
// and the event stream published under one mutex, so numbers and delivery
// order agree; event stream subscribers run on the publishing actor's
// goroutine and must only hand off (Subscribe's subscribers do).
type journal struct {
	stream eventStream
	clock  quartz.Clock

	mu   sync.Mutex
	seq  uint64
	ring []*messages.Envelope // ring[seq % len(ring)]
}

// eventStream is the part of protoactor's event stream the journal needs.
type eventStream = interface{ Publish(any) }

func newJournal(sys *actor.ActorSystem, clock quartz.Clock, size int) *journal {
	return &journal{stream: sys.EventStream, clock: clock, ring: make([]*messages.Envelope, size)}
}

// publish stamps ev and publishes it. It never blocks on a consumer.
func (j *journal) publish(ev messages.Event) *messages.Envelope {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	env := &messages.Envelope{Seq: j.seq, Time: j.clock.Now("journal", "stamp"), Event: ev}
	j.ring[j.seq%uint64(len(j.ring))] = env
	j.stream.Publish(env)
	return env
}

// since returns the kept events with a sequence number above seq, oldest
// first, and whether any event after seq was already dropped from the ring.
func (j *journal) since(seq uint64) (events []*messages.Envelope, truncated bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := uint64(len(j.ring))
	first := seq + 1
	if j.seq >= n && first <= j.seq-n {
		first, truncated = j.seq-n+1, true
	}
	events = make([]*messages.Envelope, 0, j.seq-min(j.seq, first-1))
	for s := first; s <= j.seq; s++ {
		events = append(events, j.ring[s%n])
	}
	return events, truncated
}
