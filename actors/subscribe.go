package actors

import (
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/eventstream"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Subscription delivers events on C. Delivery never blocks an actor: when
// the consumer falls behind by more than the buffer, events are dropped and
// counted; Dropped tells how many, and EventsSince replays them from the
// journal while they are still kept.
type Subscription struct {
	C <-chan *messages.Envelope

	s       *Supervisor
	sub     *eventstream.Subscription
	dropped atomic.Uint64
	once    sync.Once
	mu      sync.Mutex // guards ch against a send after Close
	ch      chan *messages.Envelope
	done    bool
}

// Subscribe follows every event published from now on. buffer is how many
// undelivered events it holds before dropping (at least 1).
func (s *Supervisor) Subscribe(buffer int) *Subscription {
	ch := make(chan *messages.Envelope, max(buffer, 1))
	sub := &Subscription{C: ch, ch: ch, s: s}
	sub.sub = s.sys.EventStream.Subscribe(func(evt any) {
		if env, ok := evt.(*messages.Envelope); ok {
			sub.deliver(env)
		}
	})
	return sub
}

func (sub *Subscription) deliver(env *messages.Envelope) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.done {
		return
	}
	select {
	case sub.ch <- env:
	default:
		sub.dropped.Add(1)
	}
}

// Dropped is the number of events not delivered because C was full.
func (sub *Subscription) Dropped() uint64 { return sub.dropped.Load() }

// Close ends the subscription and closes C. It is idempotent.
func (sub *Subscription) Close() {
	sub.once.Do(func() {
		sub.s.sys.EventStream.Unsubscribe(sub.sub)
		sub.mu.Lock()
		sub.done = true
		close(sub.ch)
		sub.mu.Unlock()
	})
}
