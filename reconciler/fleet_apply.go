package reconciler

import (
	"slices"

	"github.com/mcpvisor/mcpvisor/messages"
)

// desiredArrived plans a new desired state against the live servers and
// applies the plan. A superseded desired state is dropped.
func (f *Fleet) desiredArrived(m *messages.DesiredState) {
	if m.Generation < f.generation {
		return
	}
	desired := Desired{Servers: m.Servers, Invalid: m.Invalid}
	steps := Plan(desired, f.observedServers())
	f.emit(&messages.PlanComputed{Generation: m.Generation, Steps: steps})
	f.forgetStale(m.Servers)
	f.generation, f.desired, f.dirty = m.Generation, desired, true
	f.applyInvalid(m.Invalid)
	f.applyDisabled(m.Servers)
	started := f.applySteps(steps, m.Servers)
	f.observed = f.generation
	f.emit(&messages.PlanApplied{Generation: m.Generation, Steps: steps})
	f.change = &appliedChange{generation: m.Generation, steps: steps, started: started}
}

// applySteps carries out a plan; it returns the servers whose sessions it
// started, restarted or retried (the ones a resync waits for).
func (f *Fleet) applySteps(steps []messages.PlanStep, servers []messages.ServerSpec) map[string]bool {
	specs := make(map[string]messages.ServerSpec, len(servers))
	for _, s := range servers {
		specs[s.Name] = s
	}
	started := map[string]bool{}
	for _, st := range steps {
		if f.applyStep(st, specs[st.Server]) {
			started[st.Server] = true
		}
	}
	return started
}

// applyStep carries out one plan step; it reports whether the step started
// a session whose outcome a resync should wait for.
func (f *Fleet) applyStep(st messages.PlanStep, spec messages.ServerSpec) bool {
	s := f.servers[st.Server]
	switch st.Action {
	case messages.ActionStart:
		if s == nil {
			s = &fleetServer{state: messages.StateStopped}
			f.servers[spec.Name] = s
		}
		s.spec, s.removed = spec, false
		f.resetFailures(s)
		if f.lazy(s) && !s.used() {
			f.rest(s, "lazy: idle until used")
			return false
		}
		f.launch(s, st.Reason)
		return true
	case messages.ActionStop:
		f.stop(st.Server, st.Reason)
	case messages.ActionRestart:
		return f.restart(s, spec, st.Reason)
	case messages.ActionRetry:
		s.spec = spec
		f.resetFailures(s)
		if s.next != nil {
			return true // the candidate for this spec is connecting: its outcome decides
		}
		if f.lazy(s) && s.state == messages.StateFailed && !s.used() {
			f.rest(s, st.Reason+"; lazy: idle until used")
			return false
		}
		f.stopSession(s.cur)
		s.cur = nil
		f.launch(s, st.Reason)
		return true
	case messages.ActionKeep:
		f.keep(s, spec)
	}
	return false
}

// keep applies the live-settable fields (tool filters, call timeout,
// restart policy) of an unchanged server without touching its session.
func (f *Fleet) keep(s *fleetServer, spec messages.ServerSpec) {
	if s == nil || spec.Name == "" {
		return // disabled and not running, or invalid: nothing live to update
	}
	if s.next != nil {
		// The plan compared against the pending change: its live settings
		// are what changed. The serving session keeps its own spec.
		s.next.spec = spec
		return
	}
	old := s.spec
	wasListing := f.listing(s)
	s.spec = spec
	f.touch(spec.Name) // the source position or live settings may have moved
	// An idle server made eager lists nothing until it is ready.
	listingChanged := f.listing(s) != wasListing
	if !slices.Equal(old.AllowTools, spec.AllowTools) || !slices.Equal(old.DenyTools, spec.DenyTools) || old.Prefix != spec.Prefix || listingChanged {
		f.publishTools(s)
	}
	if listingChanged {
		f.publishCatalog(s)
	}
	if old.Prefix != spec.Prefix {
		s.catalog.prompts = stampPrompts(s.catalog.prompts, spec.Prefix)
		f.publishCatalog(s) // every prompt is now exposed under another name
	}
	f.applyAutostart(s, old)
	if s.changeErr != "" {
		// The config is back to what the serving session runs: the change
		// that failed is no longer wanted, and neither is its warning. The
		// clearing is announced only where the warning showed (a ready
		// server): anything else, stopping say, keeps its own transitions.
		shown := s.warning() != ""
		s.changeErr = ""
		if shown {
			f.transition(s, s.state, "config matches the serving session again", nil)
		}
	}
}

// restart applies a changed spec. A ready server restarts make before
// break; anything else is stopped and started afresh. It reports whether
// a session was started.
func (f *Fleet) restart(s *fleetServer, spec messages.ServerSpec, reason string) bool {
	if s.cur != nil && s.cur.ready && s.state == messages.StateReady {
		f.stopSession(s.next)
		s.next = nil
		if s.cur.spec.Fingerprint == spec.Fingerprint {
			// Changed back before the candidate was ready: the serving
			// session already runs it.
			f.transition(s, s.state, "change reverted; candidate stopped", nil)
			f.keep(s, spec)
			return false
		}
		// Make before break: the old session serves until the new one is
		// ready; if the new one fails, the old one keeps serving.
		s.next = f.spawn(spec)
		s.next.reason = "restarted, " + reason
		s.changeErr = ""
		f.touch(spec.Name)
		return true
	}
	f.stopSession(s.next)
	s.next = nil
	f.stopSession(s.cur)
	s.cur = nil
	s.spec, s.changeErr = spec, ""
	f.resetFailures(s)
	if f.lazy(s) && !s.used() {
		f.rest(s, reason+"; idle until used")
		return false
	}
	f.launch(s, reason)
	return true
}

// stop stops a removed or disabled server and withdraws its tools.
func (f *Fleet) stop(name, reason string) {
	s := f.servers[name]
	if s == nil {
		return
	}
	s.removed = true
	f.cancelRetry(s)
	f.queue = slices.DeleteFunc(f.queue, func(q string) bool { return q == name })
	f.stopSession(s.next)
	s.next = nil
	s.tools, s.catalog, s.listed = nil, serverCatalog{}, ""
	f.publishTools(s) // everything it exposed is withdrawn
	f.publishCatalog(s)
	f.cancelIdle(s)
	f.refuseWaiting(s, reason)
	if s.cur == nil {
		f.transition(s, messages.StateStopped, reason, nil)
		delete(f.servers, name)
		f.announceEntry(name)
		return
	}
	f.stopSession(s.cur)
	wasStopping := s.state == messages.StateStopping
	s.toIdle = false // if it was stopping to idle, now it goes away
	if wasStopping {
		return
	}
	f.transition(s, messages.StateStopping, reason, nil)
}

// observedServers is the live side of the next plan.
func (f *Fleet) observedServers() []Observed {
	out := make([]Observed, 0, len(f.servers))
	for _, s := range f.servers {
		if s.state == messages.StateStopping && !s.toIdle {
			continue // already on its way out; a new desired entry starts afresh
		}
		spec := s.spec
		if s.next != nil {
			spec = s.next.spec // the pending change is what is being applied
		}
		out = append(out, Observed{Spec: spec, State: s.state})
	}
	return out
}

// applyDisabled records the disabled entries, shown as disabled.
func (f *Fleet) applyDisabled(specs []messages.ServerSpec) {
	next := map[string]messages.ServerSpec{}
	for _, s := range specs {
		if s.Disabled {
			next[s.Name] = s
			f.touch(s.Name)
		}
	}
	for name := range f.disabled {
		f.touch(name)
	}
	f.disabled = next
}

// applyInvalid records the invalid entries; one that has no live server
// shows as invalid.
func (f *Fleet) applyInvalid(invalid []messages.InvalidServer) {
	next := make(map[string]messages.InvalidServer, len(invalid))
	for name := range f.invalid {
		f.touch(name)
	}
	for _, inv := range invalid {
		next[inv.Name] = inv
		f.touch(inv.Name)
		if was, ok := f.invalid[inv.Name]; ok && was.EntryState() == inv.EntryState() {
			continue
		}
		if s := f.servers[inv.Name]; s != nil {
			if inv.EntryState() == messages.StateUntrusted || s.state == messages.StateStopping {
				// Plan stops it (or it is already stopping): the entry's
				// state is announced once the server is gone
				// (announceEntry), so that the events read ready →
				// stopping → stopped → untrusted, in the order things
				// happen.
				continue
			}
			// Plan keeps its session: say why the config no longer counts.
			f.transition(s, s.state, "entry invalid, keeping the last valid session: "+inv.Reason, nil)
			continue
		}
		f.emit(&messages.ServerStateChanged{
			Server: inv.Name, Generation: f.generation, From: messages.StateStopped, To: inv.EntryState(), Reason: inv.Reason,
		})
	}
	f.invalid = next
}

// announceEntry publishes, once a server is gone, the state of its entry
// if the entry is invalid, untrusted or needs input.
func (f *Fleet) announceEntry(name string) {
	if inv, ok := f.invalid[name]; ok {
		f.emit(&messages.ServerStateChanged{
			Server: name, Generation: f.generation, From: messages.StateStopped, To: inv.EntryState(), Reason: inv.Reason,
		})
	}
}
