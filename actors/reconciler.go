package actors

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// reconcilerActor is the single writer of "what should run". It diffs each
// desired state against the live servers with reconciler.Plan, carries the
// plan out by spawning and stopping session actors (its children), turns
// their reports into state changes, retries failed servers on the quartz
// clock, and publishes every change as an event and as a new fleet view.
type reconcilerActor struct {
	env  *environment
	view *fleetView
	log  *zap.Logger

	generation, observedGen uint64
	servers                 map[string]*server
	invalid                 map[string]messages.InvalidServer
	diagnostics             []messages.Diagnostic
	nextSession             uint64

	// connecting counts sessions between spawn and their first report;
	// queue holds servers waiting for a connect slot (state pending).
	connecting int
	queue      []string

	resyncs []*pendingResync
	rng     *rand.Rand

	// outbox holds the events of the message being handled. They are
	// published after the fleet view is swapped, so a subscriber reacting to
	// an event already reads the state it announces.
	outbox []messages.Event
	// replies to resync requesters go out with the events, for the same
	// reason: whoever gets the outcome may read Status at once.
	replies []reply
	dirty   bool // the view needs a new snapshot

	// touched names the servers whose view rows need rebuilding; disabled
	// holds the desired entries that are disabled (shown, never run).
	touched  map[string]bool
	disabled map[string]messages.ServerSpec
}

// server is the reconciler's record of one configured server.
type server struct {
	spec  messages.ServerSpec // the spec currently applied
	state messages.State
	since time.Time

	cur  *sessionRef // the session serving (or trying to)
	next *sessionRef // make-before-break candidate for a changed spec

	attempt, restarts int
	everReady         bool        // a later ready session is a restart
	failures          []time.Time // inside the crash-loop window
	lastErr, warning  string
	stderrTail        []string
	nextRetry         time.Time
	retry             *quartz.Timer
	retryToken        uint64

	tools []messages.Tool // as listed by cur, before filtering
}

type sessionRef struct {
	id         uint64
	pid        *actor.PID
	spec       messages.ServerSpec
	osPID      int
	reason     string          // why it was started, for its ready event
	stderr     func() []string // live stderr tail once ready (stdio only)
	connecting bool            // holds a connect slot
	ready      bool
	stopping   bool
}

// Messages private to the reconciler actor.
type (
	retryDue struct {
		server string
		token  uint64
	}
	// configDiagnostics carries the config actor's diagnostics into status.
	configDiagnostics struct{ diagnostics []messages.Diagnostic }
)

type reply struct {
	to  *actor.PID
	msg any
}

type pendingResync struct {
	req     *messages.ResyncRequested
	gen     uint64
	waiting map[string]bool
}

func newReconcilerProps(env *environment, view *fleetView) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &reconcilerActor{
			env:     env,
			view:    view,
			log:     env.log.Named("reconciler"),
			servers: map[string]*server{},
			invalid: map[string]messages.InvalidServer{},
			rng:     rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		}
	})
}

func (r *reconcilerActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *messages.DesiredState:
		r.desiredState(c, m)
	case *configDiagnostics:
		r.diagnostics, r.dirty = m.diagnostics, true
	case *sessionReady:
		r.sessionReady(c, m)
	case *sessionTools:
		r.sessionTools(m)
	case *messages.ServerFailed:
		r.serverFailed(c, m)
	case *sessionStopped:
		r.sessionStopped(c, m)
	case *retryDue:
		r.retryDue(c, m)
	case *actor.Stopping:
		r.stopRetries()
	default:
		return
	}
	r.flush(c)
}

// emit queues an event for publication once the message is handled; a
// server event also marks that server's view row for rebuilding.
func (r *reconcilerActor) emit(ev messages.Event) {
	r.outbox = append(r.outbox, ev)
	r.dirty = true
	switch ev := ev.(type) {
	case *messages.ServerStateChanged:
		r.touch(ev.Server)
	case *messages.ToolsChanged:
		r.touch(ev.Server)
	}
}

// flush swaps the fleet view, then publishes the queued events in order
// and sends the queued replies.
func (r *reconcilerActor) flush(c actor.Context) {
	if r.dirty {
		r.refreshView()
		r.dirty = false
	}
	for _, ev := range r.outbox {
		r.env.journal.publish(ev)
	}
	clear(r.outbox)
	r.outbox = r.outbox[:0]
	for _, rp := range r.replies {
		c.Send(rp.to, rp.msg)
	}
	clear(r.replies)
	r.replies = r.replies[:0]
}

// desiredState plans a new desired state (or a resync of the current one)
// and applies the plan unless it is a dry run.
func (r *reconcilerActor) desiredState(c actor.Context, m *messages.DesiredState) {
	if m.Generation < r.generation {
		r.log.Debug("stale desired state dropped", zap.Uint64("generation", m.Generation))
		if m.Resync != nil {
			r.answerResync(m.Resync, r.generation, nil)
		}
		return
	}
	desired := reconciler.Desired{Servers: m.Servers, Invalid: m.Invalid, Resync: m.Resync != nil}
	steps := reconciler.Plan(desired, r.observed())
	dry := m.Resync != nil && m.Resync.DryRun
	r.emit(&messages.PlanComputed{Generation: m.Generation, DryRun: dry, Steps: steps})
	if dry {
		r.answerResync(m.Resync, m.Generation, steps)
		r.completeResync(&pendingResync{req: m.Resync, gen: m.Generation, waiting: map[string]bool{}})
		return
	}
	r.generation, r.dirty = m.Generation, true
	r.applyInvalid(m.Invalid)
	r.applyDisabled(m.Servers)
	specs := make(map[string]messages.ServerSpec, len(m.Servers))
	for _, s := range m.Servers {
		specs[s.Name] = s
	}
	touched := map[string]bool{}
	for _, st := range steps {
		if r.apply(c, st, specs[st.Server]) {
			touched[st.Server] = true
		}
	}
	r.observedGen = r.generation
	r.emit(&messages.PlanApplied{Generation: m.Generation, Steps: steps})
	if m.Resync != nil {
		r.answerResync(m.Resync, m.Generation, steps)
		r.resyncs = append(r.resyncs, &pendingResync{req: m.Resync, gen: m.Generation, waiting: touched})
		r.checkResyncs()
	}
}

// apply carries out one plan step; it reports whether the step started a
// session whose outcome a resync should wait for.
func (r *reconcilerActor) apply(c actor.Context, st messages.PlanStep, spec messages.ServerSpec) bool {
	s := r.servers[st.Server]
	switch st.Action {
	case messages.ActionStart:
		if spec.Disabled {
			return false
		}
		if s == nil {
			s = &server{state: messages.StateStopped}
			r.servers[spec.Name] = s
		}
		s.spec = spec
		r.resetFailures(s)
		r.launch(c, s, st.Reason)
		return true
	case messages.ActionStop:
		r.stop(c, st.Server, st.Reason)
	case messages.ActionRestart:
		r.restart(c, s, spec, st.Reason)
		return true
	case messages.ActionRetry:
		s.spec = spec
		r.resetFailures(s)
		r.stopSession(c, s.cur)
		s.cur = nil
		r.launch(c, s, st.Reason)
		return true
	case messages.ActionKeep:
		r.keep(s, spec)
	}
	return false
}

// keep applies the live-settable fields (tool filters, call timeout,
// restart policy) of an unchanged server without touching its session.
func (r *reconcilerActor) keep(s *server, spec messages.ServerSpec) {
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
	s.spec = spec
	r.touch(spec.Name) // the source position or live settings may have moved
	if !slices.Equal(old.AllowTools, spec.AllowTools) || !slices.Equal(old.DenyTools, spec.DenyTools) {
		r.publishTools(spec.Name, s, filterTools(s.tools, old))
	}
}

func (r *reconcilerActor) restart(c actor.Context, s *server, spec messages.ServerSpec, reason string) {
	if s.cur != nil && s.cur.ready && s.state == messages.StateReady {
		// Make before break: the old session serves until the new one is
		// ready; if the new one fails, the old one keeps serving.
		r.stopSession(c, s.next)
		s.next = r.spawn(c, spec)
		s.next.reason = "restarted, " + reason
		s.warning = ""
		r.log.Info("restarting, old session serves meanwhile", zap.String("server", spec.Name), zap.String("reason", reason))
		return
	}
	r.stopSession(c, s.next)
	s.next = nil
	r.stopSession(c, s.cur)
	s.cur = nil
	s.spec = spec
	r.resetFailures(s)
	r.launch(c, s, reason)
}

// launch starts a new session for s now, or queues it for a connect slot.
func (r *reconcilerActor) launch(c actor.Context, s *server, reason string) {
	r.cancelRetry(s)
	if r.connecting >= r.env.opts.MaxConnects {
		if !slices.Contains(r.queue, s.spec.Name) {
			r.queue = append(r.queue, s.spec.Name)
		}
		r.transition(s, messages.StatePending, reason)
		return
	}
	s.cur = r.spawn(c, s.spec)
	r.transition(s, messages.StateStarting, reason)
}

func (r *reconcilerActor) spawn(c actor.Context, spec messages.ServerSpec) *sessionRef {
	r.nextSession++
	ref := &sessionRef{id: r.nextSession, spec: spec, connecting: true}
	r.connecting++
	ref.pid = c.SpawnPrefix(newSessionProps(r.env, spec, ref.id), "session-"+spec.Name+"-")
	return ref
}

// releaseSlot frees ref's connect slot and starts queued servers.
func (r *reconcilerActor) releaseSlot(c actor.Context, ref *sessionRef) {
	if ref == nil || !ref.connecting {
		return
	}
	ref.connecting = false
	r.connecting--
	for len(r.queue) > 0 && r.connecting < r.env.opts.MaxConnects {
		name := r.queue[0]
		r.queue = r.queue[1:]
		if s := r.servers[name]; s != nil && s.state == messages.StatePending {
			s.cur = r.spawn(c, s.spec)
			r.transition(s, messages.StateStarting, "connect slot free")
		}
	}
}

// stopSession asks a session to stop gracefully. Its sessionStopped report
// follows once its process is gone.
func (r *reconcilerActor) stopSession(c actor.Context, ref *sessionRef) {
	if ref == nil || ref.stopping {
		return
	}
	ref.stopping = true
	r.releaseSlot(c, ref)
	c.Send(ref.pid, &stopSession{})
}

func (r *reconcilerActor) stop(c actor.Context, name, reason string) {
	s := r.servers[name]
	if s == nil {
		return
	}
	r.cancelRetry(s)
	r.queue = slices.DeleteFunc(r.queue, func(q string) bool { return q == name })
	r.stopSession(c, s.next)
	s.next = nil
	prev := filterTools(s.tools, s.spec)
	s.tools = nil
	r.publishTools(name, s, prev) // everything it exposed is withdrawn
	if s.cur == nil {
		r.transition(s, messages.StateStopped, reason)
		delete(r.servers, name)
		r.announceUntrusted(name)
		return
	}
	r.stopSession(c, s.cur)
	r.transition(s, messages.StateStopping, reason)
}

func (r *reconcilerActor) sessionStopped(c actor.Context, m *sessionStopped) {
	s := r.servers[m.server]
	if s == nil || s.cur == nil || s.cur.id != m.id {
		return // a replaced session (make-before-break, retry) went away
	}
	s.cur = nil
	if s.state == messages.StateStopping {
		r.transitionWith(s, messages.StateStopped, "process gone", func(ev *messages.ServerStateChanged) { ev.Session = m.id })
		delete(r.servers, m.server)
		r.announceUntrusted(m.server)
	}
}

func (r *reconcilerActor) sessionReady(c actor.Context, m *sessionReady) {
	s := r.servers[m.server]
	if s == nil {
		return
	}
	prev := filterTools(s.tools, s.spec) // what was exposed before this report
	switch {
	case s.next != nil && s.next.id == m.id:
		// The changed spec works: swap, then retire the old session.
		r.releaseSlot(c, s.next)
		old := s.cur
		s.cur, s.next = s.next, nil
		s.spec = s.cur.spec
		r.stopSession(c, old)
	case s.cur != nil && s.cur.id == m.id && !s.cur.stopping:
		r.releaseSlot(c, s.cur)
	default:
		return // stale: superseded or stopping
	}
	if s.everReady {
		s.restarts++
	}
	s.everReady = true
	s.cur.ready, s.cur.osPID, s.cur.stderr = true, m.pid, m.stderr
	s.attempt, s.lastErr, s.warning, s.nextRetry = 0, "", "", time.Time{}
	s.tools = m.tools
	reason := "connected"
	if s.cur.reason != "" {
		reason = s.cur.reason
	}
	r.transitionWith(s, messages.StateReady, reason, func(ev *messages.ServerStateChanged) { ev.PID = m.pid })
	r.publishTools(m.server, s, prev)
	r.checkResyncs()
}

func (r *reconcilerActor) sessionTools(m *sessionTools) {
	s := r.servers[m.server]
	if s == nil || s.cur == nil || s.cur.id != m.id || !s.cur.ready {
		return
	}
	prev := filterTools(s.tools, s.spec)
	s.tools = m.tools
	r.publishTools(m.server, s, prev)
}

// serverFailed handles the death, or the failed start, of a session.
func (r *reconcilerActor) serverFailed(c actor.Context, m *messages.ServerFailed) {
	s := r.servers[m.Server]
	if s == nil {
		return
	}
	if s.next != nil && s.next.id == m.Session {
		r.changeFailed(c, s, m)
		return
	}
	if s.cur == nil || s.cur.id != m.Session || s.cur.stopping {
		return // stale
	}
	r.stopSession(c, s.cur) // makes sure the process group is gone
	s.cur = nil
	r.fail(c, s, m)
}

// changeFailed handles the failure of a make-before-break candidate: the
// old session keeps serving, with a warning. If the old session has died
// meanwhile, nothing serves: the server has failed, on its new spec.
func (r *reconcilerActor) changeFailed(c actor.Context, s *server, m *messages.ServerFailed) {
	r.stopSession(c, s.next)
	spec := s.next.spec
	s.next = nil
	if s.cur == nil {
		s.spec = spec
		r.fail(c, s, m)
		return
	}
	s.warning = "new config failed, still serving the previous session: " + m.Error
	s.stderrTail = m.StderrTail
	r.log.Warn("changed server failed to start; previous session kept", zap.String("server", m.Server), zap.String("error", m.Error))
	r.emit(&messages.ServerStateChanged{
		Server: m.Server, Generation: r.generation, Session: s.cur.id, From: s.state, To: s.state,
		Reason: "new config failed; previous session kept", Error: m.Error, StderrTail: m.StderrTail,
	})
	r.checkResyncs()
}

// fail marks s failed after the failure m (its sessions are already being
// stopped), withdraws its tools, and schedules a retry unless the restart
// policy or the crash-loop budget says otherwise.
func (r *reconcilerActor) fail(c actor.Context, s *server, m *messages.ServerFailed) {
	now := r.env.clock.Now("reconciler", "failure")
	s.attempt++
	s.lastErr, s.stderrTail = m.Error, m.StderrTail
	var loop bool
	loop, s.failures = r.env.opts.CrashLoop.Exceeded(append(s.failures, now), now)
	prev := filterTools(s.tools, s.spec)
	s.tools = nil
	r.publishTools(m.Server, s, prev) // a dead server exposes nothing
	r.cancelRetry(s)
	var reason string
	switch {
	case s.spec.Restart == messages.RestartNever:
		reason = "failed; restart policy never: waiting for resync or config change"
	case loop:
		reason = fmt.Sprintf("crash loop (%d failures in %s): waiting for resync or config change", len(s.failures), r.env.opts.CrashLoop.Window)
	default:
		d := r.env.opts.Backoff.Delay(s.attempt, r.rng.Float64())
		s.nextRetry = now.Add(d)
		token, self, root, name := s.retryToken, c.Self(), c.ActorSystem().Root, m.Server
		s.retry = r.env.clock.AfterFunc(d, func() { root.Send(self, &retryDue{server: name, token: token}) }, "reconciler", "backoff")
		reason = "failed; retrying in " + d.Round(time.Millisecond).String()
	}
	r.transitionWith(s, messages.StateFailed, reason, func(ev *messages.ServerStateChanged) {
		ev.Session, ev.Error, ev.StderrTail = m.Session, m.Error, m.StderrTail
	})
	r.checkResyncs()
}

func (r *reconcilerActor) retryDue(c actor.Context, m *retryDue) {
	s := r.servers[m.server]
	if s == nil || s.retryToken != m.token || s.state != messages.StateFailed {
		return
	}
	if s.next != nil {
		return // a changed spec is already being started: its outcome decides
	}
	s.retry = nil
	r.launch(c, s, "retry after backoff")
}

func (r *reconcilerActor) resetFailures(s *server) {
	s.attempt, s.failures, s.nextRetry = 0, nil, time.Time{}
}

func (r *reconcilerActor) cancelRetry(s *server) {
	if s.retry != nil {
		s.retry.Stop("reconciler", "backoff")
		s.retry = nil
	}
	s.retryToken++
	s.nextRetry = time.Time{}
}

func (r *reconcilerActor) stopRetries() {
	for _, s := range r.servers {
		r.cancelRetry(s)
	}
}

// applyDisabled records the disabled entries, shown in status as disabled.
func (r *reconcilerActor) applyDisabled(specs []messages.ServerSpec) {
	next := map[string]messages.ServerSpec{}
	for _, s := range specs {
		if s.Disabled {
			next[s.Name] = s
			r.touch(s.Name)
		}
	}
	for name := range r.disabled {
		r.touch(name)
	}
	r.disabled = next
}

// applyInvalid records invalid entries; one that has no live server shows
// as invalid in status.
func (r *reconcilerActor) applyInvalid(invalid []messages.InvalidServer) {
	next := make(map[string]messages.InvalidServer, len(invalid))
	for name := range r.invalid {
		r.touch(name)
	}
	for _, inv := range invalid {
		next[inv.Name] = inv
		r.touch(inv.Name)
		if was, ok := r.invalid[inv.Name]; (!ok || was.EntryState() != inv.EntryState()) && !r.stoppingForTrust(inv) {
			r.emit(&messages.ServerStateChanged{
				Server: inv.Name, Generation: r.generation, From: messages.StateStopped, To: inv.EntryState(), Reason: inv.Reason,
			})
		}
	}
	r.invalid = next
}

func (r *reconcilerActor) transition(s *server, to messages.State, reason string) {
	r.transitionWith(s, to, reason, nil)
}

// transitionWith moves s to a new state and publishes the change.
func (r *reconcilerActor) transitionWith(s *server, to messages.State, reason string, decorate func(*messages.ServerStateChanged)) {
	ev := &messages.ServerStateChanged{
		Server: s.spec.Name, Generation: r.generation, From: s.state, To: to, Reason: reason,
		Attempt: s.attempt, NextRetry: s.nextRetry,
	}
	if s.cur != nil {
		ev.Session = s.cur.id
	}
	if decorate != nil {
		decorate(ev)
	}
	s.state, s.since = to, r.env.clock.Now("reconciler", "transition")
	r.log.Info("server state", zap.String("server", ev.Server), zap.String("from", string(ev.From)),
		zap.String("to", string(to)), zap.String("reason", reason))
	r.emit(ev)
}

// publishTools publishes the difference between prev and s's current
// exposed tools (none unless it is ready).
func (r *reconcilerActor) publishTools(name string, s *server, prev []messages.Tool) {
	var now []messages.Tool
	if s.state == messages.StateReady && s.cur != nil {
		now = filterTools(s.tools, s.spec)
	}
	added, removed, changed := diffTools(prev, now)
	if len(added)+len(removed)+len(changed) == 0 {
		return
	}
	ev := &messages.ToolsChanged{Server: name, Tools: append([]messages.Tool{}, now...), Added: added, Removed: removed, Changed: changed}
	if s.cur != nil {
		ev.Session = s.cur.id
	}
	r.emit(ev)
}

// observed is the live side of the next plan.
func (r *reconcilerActor) observed() []reconciler.Observed {
	out := make([]reconciler.Observed, 0, len(r.servers))
	for _, s := range r.servers {
		if s.state == messages.StateStopping {
			continue // already on its way out; a new desired entry starts afresh
		}
		spec := s.spec
		if s.next != nil {
			spec = s.next.spec // the pending change is what is being applied
		}
		out = append(out, reconciler.Observed{Spec: spec, State: s.state})
	}
	return out
}

func (r *reconcilerActor) answerResync(req *messages.ResyncRequested, gen uint64, steps []messages.PlanStep) {
	if req.ReplyTo == nil {
		return
	}
	if steps == nil {
		steps = []messages.PlanStep{}
	}
	r.replies = append(r.replies, reply{req.ReplyTo, &messages.ResyncPlanned{ID: req.ID, Generation: gen, DryRun: req.DryRun, Steps: steps}})
}

// checkResyncs completes every resync whose servers have all settled.
func (r *reconcilerActor) checkResyncs() {
	open := r.resyncs[:0]
	for _, p := range r.resyncs {
		if r.settled(p) {
			r.completeResync(p)
		} else {
			open = append(open, p)
		}
	}
	r.resyncs = open
}

func (r *reconcilerActor) settled(p *pendingResync) bool {
	for name := range p.waiting {
		s := r.servers[name]
		if s == nil {
			continue
		}
		if s.next != nil || s.state == messages.StatePending || s.state == messages.StateStarting {
			return false
		}
	}
	return true
}

func (r *reconcilerActor) completeResync(p *pendingResync) {
	outcomes := make([]messages.ServerOutcome, 0, len(p.waiting))
	for name := range p.waiting {
		o := messages.ServerOutcome{Server: name, State: messages.StateStopped}
		if s := r.servers[name]; s != nil {
			o.State, o.Error = s.state, s.lastErr
			if s.warning != "" {
				o.Error = s.warning
			}
		}
		outcomes = append(outcomes, o)
	}
	sort.Slice(outcomes, func(i, j int) bool { return outcomes[i].Server < outcomes[j].Server })
	done := &messages.ResyncCompleted{ID: p.req.ID, Generation: p.gen, Outcomes: outcomes}
	r.emit(done)
	if p.req.ReplyTo != nil {
		r.replies = append(r.replies, reply{p.req.ReplyTo, done})
	}
}
