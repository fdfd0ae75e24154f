package fleet

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/coder/quartz"
)

// serverTimers are the fleet actor's quartz timers of one kind (retry
// backoff, idle stop), at most one per server. Each carries the fleet's
// token, so a timer that fired after it was replaced is told apart from
// the armed one. They are touched only on the fleet actor's goroutine; the
// callbacks only send.
type serverTimers struct {
	tag    string // the quartz tag after "fleet"
	timers map[string]serverTimer
}

type serverTimer struct {
	timer *quartz.Timer
	token uint64
}

func newServerTimers(tag string) serverTimers {
	return serverTimers{tag: tag, timers: map[string]serverTimer{}}
}

// arm replaces the server's timer with one that calls fire after delay.
func (t *serverTimers) arm(clock quartz.Clock, server string, token uint64, delay time.Duration, fire func()) {
	t.cancel(server)
	t.timers[server] = serverTimer{timer: clock.AfterFunc(delay, fire, "fleet", t.tag), token: token}
}

func (t *serverTimers) cancel(server string) {
	if st, ok := t.timers[server]; ok {
		st.timer.Stop("fleet", t.tag)
		delete(t.timers, server)
	}
}

// fired forgets the server's timer if it is the one with token; a stale
// fire leaves a newer timer armed.
func (t *serverTimers) fired(server string, token uint64) {
	if st, ok := t.timers[server]; ok && st.token == token {
		delete(t.timers, server)
	}
}

func (t *serverTimers) cancelAll() {
	for server := range t.timers {
		t.cancel(server)
	}
}

// sendToSelf is a timer callback that only sends m to the actor of c.
func sendToSelf(c actor.Context, m any) func() {
	root, self := c.ActorSystem().Root, c.Self()
	return func() { root.Send(self, m) }
}
