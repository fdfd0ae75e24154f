package reconciler

import (
	"maps"
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/messages"
)

// pendingResync is a resync waiting for the servers it started to settle.
type pendingResync struct {
	id         string
	generation uint64
	waiting    map[string]bool
}

// appliedChange is the plan of one applied desired state.
type appliedChange struct {
	generation uint64
	steps      []messages.PlanStep
	started    map[string]bool
}

// resyncArrived retries every failed server of the desired state now (or,
// for a dry run, only plans against the preview) and answers the plan. A
// resync that follows a change answers that change's plan too, and waits
// for what it started.
func (f *Fleet) resyncArrived(m *messages.Resync) {
	if m.DryRun {
		desired, gen := f.desired, f.generation
		if m.Preview != nil {
			desired, gen = Desired{Servers: m.Preview.Servers, Invalid: m.Preview.Invalid}, m.Preview.Generation
		}
		desired.Resync = true
		steps := Plan(desired, f.observedServers())
		f.emit(&messages.PlanComputed{Generation: gen, DryRun: true, Steps: steps})
		f.effect(Reply{ID: m.ID, Message: &messages.ResyncPlanned{ID: m.ID, Generation: gen, DryRun: true, Steps: steps}})
		f.completeResync(&pendingResync{id: m.ID, generation: gen})
		return
	}
	desired := f.desired
	desired.Resync = true
	steps := Plan(desired, f.observedServers())
	f.emit(&messages.PlanComputed{Generation: f.generation, Steps: steps})
	started := f.applySteps(steps, desired.Servers)
	f.emit(&messages.PlanApplied{Generation: f.generation, Steps: steps})
	answer := steps
	if c := f.change; m.FollowsChange && c != nil && c.generation == f.generation {
		answer = mergeSteps(c.steps, steps)
		maps.Copy(started, c.started)
	}
	f.effect(Reply{ID: m.ID, Message: &messages.ResyncPlanned{ID: m.ID, Generation: f.generation, Steps: answer}})
	f.resyncs = append(f.resyncs, &pendingResync{id: m.ID, generation: f.generation, waiting: started})
}

// mergeSteps answers a resync that follows a change: each server's step of
// the change, unless the change kept it, then the resync's own.
func mergeSteps(change, resync []messages.PlanStep) []messages.PlanStep {
	by := map[string]messages.PlanStep{}
	for _, st := range resync {
		by[st.Server] = st
	}
	for _, st := range change {
		if _, ok := by[st.Server]; !ok || st.Action != messages.ActionKeep {
			by[st.Server] = st
		}
	}
	out := slices.Collect(maps.Values(by))
	slices.SortFunc(out, func(a, b messages.PlanStep) int { return strings.Compare(a.Server, b.Server) })
	return out
}

// checkResyncs completes every resync whose servers have all settled.
func (f *Fleet) checkResyncs() {
	open := f.resyncs[:0]
	for _, p := range f.resyncs {
		if f.settled(p) {
			f.completeResync(p)
		} else {
			open = append(open, p)
		}
	}
	clear(f.resyncs[len(open):])
	f.resyncs = open
}

func (f *Fleet) settled(p *pendingResync) bool {
	for name := range p.waiting {
		s := f.servers[name]
		if s == nil {
			continue
		}
		if s.next != nil || s.state == messages.StatePending || s.state == messages.StateStarting {
			return false
		}
	}
	return true
}

func (f *Fleet) completeResync(p *pendingResync) {
	outcomes := make([]messages.ServerOutcome, 0, len(p.waiting))
	for name := range p.waiting {
		o := messages.ServerOutcome{Server: name, State: messages.StateStopped}
		if s := f.servers[name]; s != nil {
			o.State, o.Error = s.state, s.lastErr
			if w := s.warning(); w != "" {
				o.Error = w
			}
		}
		outcomes = append(outcomes, o)
	}
	slices.SortFunc(outcomes, func(a, b messages.ServerOutcome) int { return strings.Compare(a.Server, b.Server) })
	done := &messages.ResyncCompleted{ID: p.id, Generation: p.generation, Outcomes: outcomes}
	f.emit(done)
	f.effect(Reply{ID: p.id, Message: done})
}
