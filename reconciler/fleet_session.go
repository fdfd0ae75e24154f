package reconciler

import (
	"fmt"
	"slices"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// launch starts a new session for s now, or queues it for a connect slot.
func (f *Fleet) launch(s *fleetServer, reason string) {
	f.cancelRetry(s)
	s.toIdle = false // a stop to idle in progress is moot
	if !f.mayStart(s) {
		if !slices.Contains(f.queue, s.spec.Name) {
			f.queue = append(f.queue, s.spec.Name)
		}
		f.transition(s, messages.StatePending, reason, nil)
		return
	}
	f.start(s)
	f.transition(s, messages.StateStarting, reason, nil)
}

// mayStart reports whether s can start now: a connect slot is free and,
// for a lazy server, a lazy start slot too.
func (f *Fleet) mayStart(s *fleetServer) bool {
	if f.opts.MaxConnects > 0 && f.connecting >= f.opts.MaxConnects {
		return false
	}
	return !f.lazy(s) || f.opts.MaxLazyStarts <= 0 || f.lazyStarting < f.opts.MaxLazyStarts
}

// start spawns s's session, in a lazy start slot if s is lazy.
func (f *Fleet) start(s *fleetServer) {
	s.cur = f.spawn(s.spec)
	if f.lazy(s) {
		s.cur.lazySlot = true
		f.lazyStarting++
	}
}

func (f *Fleet) spawn(spec messages.ServerSpec) *fleetSession {
	f.lastSession++
	ref := &fleetSession{id: f.lastSession, spec: spec, connecting: true, spawned: f.now}
	f.connecting++
	f.inFlight[ref.id] = ref
	f.effect(Spawn{Session: ref.id, Spec: spec})
	return ref
}

// releaseSlot ends ref's connect and frees its slot, if it holds one;
// queued servers take it at the end of the step (startQueued), after the
// step's own events.
func (f *Fleet) releaseSlot(ref *fleetSession) {
	if ref == nil {
		return
	}
	delete(f.inFlight, ref.id)
	ref.waiting = false
	if ref.lazySlot {
		ref.lazySlot = false
		f.lazyStarting--
	}
	if !ref.connecting {
		return
	}
	ref.connecting = false
	f.connecting--
}

// startQueued starts queued servers, oldest first, while slots are
// free: a lazy server that waits for a lazy start slot holds up no eager
// one behind it.
func (f *Fleet) startQueued() {
	var still []string
	for _, name := range f.queue {
		s := f.servers[name]
		if s == nil || s.state != messages.StatePending {
			continue // removed, or started otherwise, meanwhile
		}
		if !f.mayStart(s) {
			still = append(still, name)
			continue
		}
		f.start(s)
		f.transition(s, messages.StateStarting, "connect slot free", nil)
	}
	f.queue = still
}

// stopSession asks a session to stop gracefully. Its SessionStopped
// follows once its process is gone.
func (f *Fleet) stopSession(ref *fleetSession) {
	if ref == nil || ref.stopping {
		return
	}
	ref.stopping = true
	f.releaseSlot(ref)
	f.effect(Stop{Server: ref.spec.Name, Session: ref.id})
}

func (f *Fleet) sessionStopped(m SessionStopped) {
	s := f.servers[m.Server]
	if s == nil || s.cur == nil || s.cur.id != m.Session {
		return // a replaced session (make-before-break, retry) went away
	}
	s.cur = nil
	if s.state == messages.StateStopping && s.toIdle {
		f.stoppedToIdle(s, m.Session)
		return
	}
	if s.state == messages.StateStopping {
		f.transition(s, messages.StateStopped, "process gone", func(ev *messages.ServerStateChanged) { ev.Session = m.Session })
		delete(f.servers, m.Server)
		f.announceEntry(m.Server)
	}
}

func (f *Fleet) sessionReady(m SessionReady) {
	s := f.servers[m.Server]
	if s == nil {
		return
	}
	switch {
	case s.next != nil && s.next.id == m.Session:
		// The changed spec works: swap, then retire the old session.
		f.releaseSlot(s.next)
		old := s.cur
		s.cur, s.next = s.next, nil
		s.spec, s.changeErr = s.cur.spec, ""
		f.stopSession(old)
	case s.cur != nil && s.cur.id == m.Session && !s.cur.stopping:
		f.releaseSlot(s.cur)
	default:
		return // stale: superseded or stopping
	}
	if s.everReady {
		s.restarts++
	}
	s.everReady = true
	f.cancelRetry(s) // the old session died while this one connected: its retry is moot
	s.cur.ready, s.cur.pid, s.cur.transport = true, m.PID, m.Transport
	s.attempt, s.lastErr, s.stderrTail = 0, "", nil
	s.tools, s.listed, s.parked, s.retryAt = m.Tools, s.spec.Fingerprint, false, time.Time{}
	s.catalog = serverCatalog{prompts: stampPrompts(m.Prompts, s.spec.Prefix), resources: m.Resources, templates: m.Templates}
	reason := "connected"
	if s.cur.reason != "" {
		reason = s.cur.reason
	}
	if m.Transport != "" && m.Transport != s.cur.spec.Transport {
		reason += fallbackNote(s.cur.spec.Transport, m.Transport)
	}
	f.transition(s, messages.StateReady, reason, func(ev *messages.ServerStateChanged) { ev.PID = m.PID })
	f.publishTools(s)
	f.publishSkipped(m.Skipped)
	f.publishCatalog(s)
	f.cacheListed(s)
	f.grantWaiting(s)
	f.settleIdle(s)
}

func (f *Fleet) sessionTools(m SessionTools) {
	s := f.servers[m.Server]
	if s == nil || s.cur == nil || s.cur.id != m.Session || !s.cur.ready {
		return
	}
	s.tools = m.Tools
	f.publishTools(s)
	f.cacheListed(s)
}

// sessionFailed handles the death, or the failed start, of a session.
func (f *Fleet) sessionFailed(m *messages.ServerFailed, jitter float64) {
	s := f.servers[m.Server]
	if s == nil {
		return
	}
	if s.next != nil && s.next.id == m.Session {
		f.changeFailed(s, m, jitter)
		return
	}
	if s.cur == nil || s.cur.id != m.Session || s.cur.stopping {
		return // stale
	}
	f.stopSession(s.cur) // makes sure the process group is gone
	s.cur = nil
	f.fail(s, m, jitter)
}

// changeFailed handles the failure of a make-before-break candidate: the
// old session keeps serving, with a warning. If the old session has died
// meanwhile, nothing serves: the server has failed, on its new spec.
func (f *Fleet) changeFailed(s *fleetServer, m *messages.ServerFailed, jitter float64) {
	f.stopSession(s.next)
	spec := s.next.spec
	s.next = nil
	if s.cur == nil {
		s.spec, s.changeErr = spec, ""
		f.fail(s, m, jitter)
		return
	}
	s.changeErr = m.Error
	s.stderrTail = slices.Clone(m.StderrTail)
	f.transition(s, s.state, "new config failed; previous session kept", func(ev *messages.ServerStateChanged) {
		ev.Error, ev.StderrTail = m.Error, m.StderrTail
	})
	f.settleIdle(s) // a lazy server's idle timer waited for the outcome
}

// fail marks s failed after the failure m (its sessions are already being
// stopped), withdraws the tools it exposed, and arms a retry unless the
// restart policy or the crash-loop budget says otherwise.
func (f *Fleet) fail(s *fleetServer, m *messages.ServerFailed, jitter float64) {
	if m.NeedsAuth {
		f.needsAuth(s, m)
		return
	}
	s.attempt++
	s.lastErr, s.stderrTail = m.Error, slices.Clone(m.StderrTail)
	var loop bool
	loop, s.failures = f.opts.CrashLoop.Exceeded(append(s.failures, f.now), f.now)
	if !f.lazy(s) {
		s.tools, s.catalog, s.listed = nil, serverCatalog{}, ""
	}
	f.publishTools(s) // a dead server exposes nothing (a lazy one its last catalog)
	f.publishCatalog(s)
	f.cancelRetry(s)
	if f.lazyFailed(s, m, loop, jitter) {
		return
	}
	if !f.lazy(s) {
		// Requests that waited for an eager server to come up (one that was
		// starting when they came, fleet_lazy.go) get its failure now, not
		// after their wait: its retry, if any, is the fleet's, on backoff.
		f.refuseWaiting(s, redact.Bound("failed: "+m.Error))
	}
	var reason string
	switch {
	case s.spec.Restart == messages.RestartNever:
		reason = "failed; restart policy never: waiting for resync or config change"
	case loop:
		reason = fmt.Sprintf("crash loop (%d failures in %s): waiting for resync or config change", len(s.failures), f.opts.CrashLoop.Window)
	default:
		d := f.opts.Backoff.Delay(s.attempt, jitter)
		s.nextRetry, s.retryArmed = f.now.Add(d), true
		f.effect(ArmRetry{Server: m.Server, Token: s.retryToken, Delay: d})
		reason = "failed; retrying in " + d.Round(time.Millisecond).String()
	}
	f.transition(s, messages.StateFailed, reason, func(ev *messages.ServerStateChanged) {
		ev.Session, ev.Error, ev.StderrTail = m.Session, m.Error, m.StderrTail
	})
}

// needsAuth parks s until a person logs in: no attempt counted, no
// backoff, no crash-loop budget spent. A resync (which `mcpvisor auth
// login` asks for) or a config change starts it again.
func (f *Fleet) needsAuth(s *fleetServer, m *messages.ServerFailed) {
	s.lastErr, s.stderrTail = m.Error, nil
	s.tools = nil
	f.publishTools(s)
	f.cancelRetry(s)
	f.refuseWaiting(s, "needs authorization: run `mcpvisor auth login "+s.spec.Name+"`")
	f.transition(s, messages.StateNeedsAuth, "needs authorization: run `mcpvisor auth login "+s.spec.Name+"`", func(ev *messages.ServerStateChanged) {
		ev.Session, ev.Error = m.Session, m.Error
	})
}

func (f *Fleet) retryDue(m RetryDue) {
	s := f.servers[m.Server]
	if s == nil || s.retryToken != m.Token || !s.retryArmed {
		return // cancelled meanwhile
	}
	s.retryArmed = false
	if s.state != messages.StateFailed {
		return
	}
	if f.lazy(s) && len(s.waiting) == 0 {
		s.retryAt = f.now // nothing waits: the next use starts it
		f.touch(m.Server)
		return
	}
	if s.next != nil {
		s.nextRetry = time.Time{}
		f.touch(m.Server)
		return // a changed spec is already being started: its outcome decides
	}
	f.launch(s, "retry after backoff")
}

func (f *Fleet) resetFailures(s *fleetServer) {
	s.attempt, s.failures, s.nextRetry = 0, nil, time.Time{}
}

// cancelRetry disarms s's retry timer; a fire already on its way carries
// a stale token.
func (f *Fleet) cancelRetry(s *fleetServer) {
	if s.retryArmed {
		f.effect(CancelRetry{Server: s.spec.Name})
		s.retryArmed = false
	}
	s.retryToken++
	s.nextRetry = time.Time{}
}

// transition moves s to a state (or reports a change within one) and
// publishes it.
func (f *Fleet) transition(s *fleetServer, to messages.State, reason string, decorate func(*messages.ServerStateChanged)) {
	ev := &messages.ServerStateChanged{
		Server: s.spec.Name, Generation: f.generation, From: s.state, To: to, Reason: reason,
		Attempt: s.attempt, NextRetry: s.nextRetry,
	}
	if s.cur != nil {
		ev.Session = s.cur.id
	}
	if decorate != nil {
		decorate(ev)
	}
	s.state, s.since = to, f.now
	f.emit(ev)
}

// shownToolList is the list s's row shows tools from, before filtering:
// its own while it lists them, else its cached ones, else none.
func (f *Fleet) shownToolList(s *fleetServer) []messages.Tool {
	if f.listing(s) {
		return s.tools
	}
	if e, ok := f.cached(s); ok {
		return e.Tools
	}
	return nil
}

// publishTools publishes the difference between the tools last announced
// for s and what its row lists now. A list is never mutated, so the same
// list under the same filters has nothing to announce.
func (f *Fleet) publishTools(s *fleetServer) {
	from := f.shownToolList(s)
	filter := toolFilterOf(s.spec)
	if sameList(from, s.announcedFrom) && filter.equal(s.announcedFilter) {
		return
	}
	now := filterTools(from, s.spec)
	prev := s.announced
	s.announced, s.announcedFrom, s.announcedFilter = now, from, filter
	added, removed, changed := diffTools(prev, now)
	if len(added)+len(removed)+len(changed) == 0 {
		return
	}
	ev := &messages.ToolsChanged{Server: s.spec.Name, Tools: append([]messages.Tool{}, now...), Added: added, Removed: removed, Changed: changed}
	if s.cur != nil {
		ev.Session = s.cur.id
	}
	f.emit(ev)
}

// fallbackNote tells, in a ready event's reason, that the session speaks
// another transport than its entry names: an http entry whose server only
// took the older HTTP+SSE transport.
func fallbackNote(want, got messages.Transport) string {
	return fmt.Sprintf(" over %s (the server refused %s)", got, want)
}
