package chaos_test

import (
	"sync"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// follower keeps every event of a Supervisor for the whole run. Unlike
// testkit.Recorder it drains the subscription on a goroutine of its own,
// so a long run never fills the subscription's buffer while the test
// goroutine is busy injecting faults; changed says that events arrived.
type follower struct {
	sub     *actors.Subscription
	changed chan struct{} // one pending wake-up at most

	mu   sync.Mutex
	all  []*messages.Envelope
	last uint64
	done chan struct{}
}

// follow subscribes to sup's events and replays the ones already
// published, so that nothing since Start is missed. stop ends it.
func follow(sup *actors.Supervisor) *follower {
	f := &follower{sub: sup.Subscribe(1 << 16), changed: make(chan struct{}, 1), done: make(chan struct{})}
	past, _ := sup.EventsSince(0)
	for _, env := range past {
		f.add(env)
	}
	go func() {
		defer close(f.done)
		for env := range f.sub.C {
			f.add(env)
		}
	}()
	return f
}

func (f *follower) add(env *messages.Envelope) {
	f.mu.Lock()
	if env.Seq > f.last {
		f.last = env.Seq
		f.all = append(f.all, env)
	}
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// events returns the events recorded so far.
func (f *follower) events() []*messages.Envelope {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.all[:len(f.all):len(f.all)]
}

// stop closes the subscription and waits for the draining goroutine.
// It returns how many events the subscription dropped.
func (f *follower) stop() uint64 {
	f.sub.Close()
	<-f.done
	return f.sub.Dropped()
}
