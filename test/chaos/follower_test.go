package chaos_test

import (
	"sync"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// follower keeps every event of a Supervisor for the whole run. Unlike
// testkit.Recorder it drains the feed on a goroutine of its own, so a long
// run never lets the journal drop what the test has not looked at while
// the test goroutine is busy injecting faults; changed says that events
// arrived.
type follower struct {
	feed    *journal.Feed
	changed chan struct{} // one pending wake-up at most

	mu   sync.Mutex
	all  []*messages.Envelope
	lost uint64 // events the feed could not deliver
	done chan struct{}
}

// follow follows sup's events from the first one, so that nothing since
// Start is missed. stop ends it.
func follow(sup *actors.Supervisor) *follower {
	f := &follower{feed: sup.Follow(0, 1024), changed: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		for env := range f.feed.C {
			f.add(env)
		}
	}()
	return f
}

func (f *follower) add(env *messages.Envelope) {
	f.mu.Lock()
	if tr, ok := env.Event.(*messages.FeedTruncated); ok {
		f.lost += tr.Next - tr.Since - 1
	} else {
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

// stop closes the feed and waits for the draining goroutine. It returns
// how many events the feed could not deliver.
func (f *follower) stop() uint64 {
	f.feed.Close()
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lost
}
