package httpapi

import (
	"sync"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// convergence measures reconcile duration from the event stream: from a
// plan (PlanComputed, not a dry run) to the moment every server whose step
// was not "keep" has reached a settled state. Applying a plan is quick (it
// only spawns and stops sessions); what an operator waits for is the
// servers coming up, which this measures. Plans with only keep steps are
// not measured. Times are the journal's stamps, so the measure does not
// depend on when the events are delivered.
type convergence struct {
	mu    sync.Mutex
	plans []*openPlan // oldest first
}

type openPlan struct {
	start   time.Time
	waiting map[string]bool
}

// maxOpenPlans bounds the plans waited for; a plan whose servers never
// settle (say a step the fleet actor skipped) is forgotten once this many
// newer ones are open.
const maxOpenPlans = 32

// settledStates end a server's part in a plan. A changed server whose new
// session failed stays ready and reports ready → ready with an error, so
// ready covers it too.
var settledStates = map[messages.State]bool{
	messages.StateReady: true, messages.StateFailed: true, messages.StateStopped: true,
	messages.StateInvalid: true, messages.StateDisabled: true,
	messages.StateUntrusted: true, messages.StateNeedsAuth: true, messages.StateIdle: true,
}

func newConvergence() *convergence { return &convergence{} }

// observe takes the next event and returns the durations of the plans it
// completed.
func (c *convergence) observe(env *messages.Envelope) []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev := env.Event.(type) {
	case *messages.PlanComputed:
		c.open(env.Time, ev)
	case *messages.ServerStateChanged:
		if settledStates[ev.To] {
			return c.settle(env.Time, ev.Server)
		}
	}
	return nil
}

func (c *convergence) open(at time.Time, ev *messages.PlanComputed) {
	if ev.DryRun {
		return
	}
	waiting := map[string]bool{}
	for _, st := range ev.Steps {
		if st.Action != messages.ActionKeep {
			waiting[st.Server] = true
		}
	}
	if len(waiting) == 0 {
		return
	}
	if len(c.plans) == maxOpenPlans {
		c.plans = c.plans[1:]
	}
	c.plans = append(c.plans, &openPlan{start: at, waiting: waiting})
}

func (c *convergence) settle(at time.Time, server string) []time.Duration {
	var done []time.Duration
	open := c.plans[:0]
	for _, p := range c.plans {
		delete(p.waiting, server)
		if len(p.waiting) == 0 {
			done = append(done, at.Sub(p.start))
			continue
		}
		open = append(open, p)
	}
	clear(c.plans[len(open):])
	c.plans = open
	return done
}
