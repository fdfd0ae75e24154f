package fleet

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/intake"
	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/actors/internal/view"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// fleetActor is the shell around reconciler.Fleet, the single writer
// of "what should run". It turns each message into a fleet input (with the
// clock reading and the backoff jitter), carries out the effects: spawns
// and stops session actors (its children), arms and cancels retry timers
// on the quartz clock, then swaps the fleet view and only then publishes
// the events and sends the resync replies, so whoever reacts to one reads
// the state it announces.
//
// Its children never restart: a session actor that panics is stopped (it
// implements actor.SupervisorStrategy for them) and its death becomes a
// ServerFailed, retried like any other failure.
type fleetActor struct {
	deps  *Deps
	view  *View
	log   *zap.Logger
	fleet *reconciler.Fleet
	rng   *rand.Rand

	// sessions are the live session actors by session id; byActor maps an
	// actor's PID id to its session id; crashed holds the panic of a
	// session actor until its Terminated arrives.
	sessions map[uint64]*liveSession
	byActor  map[string]uint64
	crashed  map[string]string
	// retries and idles are the armed backoff and idle timers; users the
	// replies of the uses of lazy servers not yet released, by use id
	// (lazy.go).
	retries, idles serverTimers
	users          map[string]chan<- useAnswer
	connects       connectSampler // the connect policy's samples (connects.go)
	// waiters receive the answers to the resyncs they registered.
	waiters map[string]chan<- messages.Event
	// subs are the resource subscriptions by URI.
	subs map[string]*resourceSub

	// Of the message being handled: its events and replies, sent after the
	// view is swapped.
	outbox  []messages.Event
	replies []reconciler.Reply
	answers []queuedAnswer
}

// liveSession is the shell's half of a fleet session: where it lives, and
// once it is ready, how to read its stderr.
type liveSession struct {
	spec   messages.ServerSpec
	handle *session.Handle
	stderr func() []string
}

// Messages private to the fleet actor.
type (
	retryDue struct {
		server string
		token  uint64
	}
	// awaitResync registers where the answers to resync id go: a buffered
	// channel (2) that gets ResyncPlanned, then ResyncCompleted.
	awaitResync struct {
		id    string
		reply chan<- messages.Event
	}
	forgetResync struct{ id string }
)

func newFleetProps(deps *Deps, view *View) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &fleetActor{
			deps:     deps,
			view:     view,
			log:      deps.Logger.Named("fleet"),
			fleet:    reconciler.NewFleet(deps.Policy),
			rng:      rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
			sessions: map[uint64]*liveSession{},
			byActor:  map[string]uint64{},
			crashed:  map[string]string{},
			retries:  newServerTimers("backoff"),
			idles:    newServerTimers("idle"),
			users:    map[string]chan<- useAnswer{},
			waiters:  map[string]chan<- messages.Event{},
			subs:     map[string]*resourceSub{},
		}
	})
}

func (r *fleetActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		r.loadCache(c)
	case *messages.DesiredState:
		r.step(c, reconciler.DesiredArrived{Now: r.now(), Desired: m})
	case *messages.Resync:
		r.step(c, reconciler.ResyncArrived{Now: r.now(), Resync: m})
	case *intake.Diagnostics:
		r.step(c, reconciler.DiagnosticsArrived{Diagnostics: m.Diagnostics})
	case *session.Ready:
		r.sessionReady(c, m)
	case *session.Relisted:
		r.sessionCatalog(c, m)
	case *session.ResourceUpdated:
		r.resourceUpdated(m)
	case *subscribeResource:
		r.subscribeResource(m)
	case *unsubscribeResource:
		r.unsubscribeResource(m)
	case *messages.ServerFailed:
		r.step(c, reconciler.SessionFailed{Now: r.now(), Failure: m, Jitter: r.rng.Float64()})
	case *session.Stopped:
		r.forget(m.ID)
		r.step(c, reconciler.SessionStopped{Now: r.now(), Server: m.Server, Session: m.ID})
	case *retryDue:
		r.retryDue(c, m)
	case *useServer:
		r.useServer(c, m)
	case *releaseServer:
		r.releaseServer(c, m)
	case *idleDue:
		r.idleDue(c, m)
	case *session.Spawned:
		r.connectStarted(m)
	case *sampleDue:
		r.sampleConnects(c)
	case *connectsReadMsg:
		r.connectsRead(c, m)
	case *actor.Terminated:
		r.terminated(c, m)
	case *awaitResync:
		r.waiters[m.id] = m.reply
	case *forgetResync:
		delete(r.waiters, m.id)
	case *actor.Stopping:
		r.stopTimers()
		r.stopSample()
	default:
		return
	}
	r.flush(c)
}

func (r *fleetActor) now() time.Time { return r.deps.Clock.Now("fleet", "step") }

// step feeds one input to the fleet and carries out its effects; events
// and replies wait in the outbox for flush.
func (r *fleetActor) step(c actor.Context, in reconciler.Input) {
	for _, e := range r.fleet.Step(in) {
		switch e := e.(type) {
		case reconciler.Spawn:
			r.spawn(c, e)
		case reconciler.Stop:
			r.stop(e)
		case reconciler.ArmRetry:
			r.retries.arm(r.deps.Clock, e.Server, e.Token, e.Delay, sendToSelf(c, &retryDue{server: e.Server, token: e.Token}))
		case reconciler.CancelRetry:
			r.retries.cancel(e.Server)
		case reconciler.ArmIdle:
			r.idles.arm(r.deps.Clock, e.Server, e.Token, e.Delay, sendToSelf(c, &idleDue{server: e.Server, token: e.Token}))
		case reconciler.CancelIdle:
			r.idles.cancel(e.Server)
		case reconciler.Grant:
			r.grant(e)
		case reconciler.Refuse:
			r.refuse(e)
		case reconciler.SampleConnects:
			r.armSample(c, e)
		case reconciler.CacheCatalog:
			r.deps.Cache.Store(e.Spec, e.Entry, r.deps.Secrets)
		case reconciler.ForgetCatalog:
			r.deps.Cache.Remove(e.Server, e.Source)
		case reconciler.Publish:
			r.logEvent(e.Event)
			r.outbox = append(r.outbox, e.Event)
		case reconciler.Reply:
			r.replies = append(r.replies, e)
		}
	}
}

// logEvent logs every server state change (operators follow these lines;
// the error is redacted already).
func (r *fleetActor) logEvent(ev messages.Event) {
	switch ev := ev.(type) {
	case *messages.CatalogItemSkipped:
		r.log.Warn("catalog item too large to expose; skipped", zap.String("server", ev.Server), zap.String("kind", string(ev.Kind)),
			zap.String("key", ev.Key), zap.String("reason", ev.Reason))
		return
	case *messages.CatalogConflict:
		r.log.Warn("two servers claim the same resource; the first in config order owns it", zap.String("kind", string(ev.Kind)),
			zap.String("key", ev.Key), zap.Int("count", ev.Count), zap.String("owner", ev.Winner), zap.String("other", ev.Loser))
		return
	}
	sc, ok := ev.(*messages.ServerStateChanged)
	if !ok {
		return
	}
	fields := []zap.Field{zap.String("server", sc.Server), zap.String("from", string(sc.From)), zap.String("to", string(sc.To)), zap.String("reason", sc.Reason)}
	if sc.Error != "" {
		fields = append(fields, zap.String("error", sc.Error))
	}
	if sc.From == sc.To && sc.Error != "" {
		r.log.Warn("changed server failed to start; previous session kept", fields...)
		return
	}
	r.log.Info("server state", fields...)
}

// flush swaps the fleet view, then publishes the queued events in order
// and sends the queued replies.
func (r *fleetActor) flush(c actor.Context) {
	if names, changed := r.fleet.TakeChanged(); changed {
		old := r.view.Load()
		r.refreshView(names)
		r.pushLiveRoots(old, names)
		r.rerouteSubscriptions(old, names)
	}
	for _, ev := range r.outbox {
		r.deps.Journal.Publish(ev)
	}
	clear(r.outbox)
	r.outbox = r.outbox[:0]
	for _, rp := range r.replies {
		r.reply(rp)
	}
	clear(r.replies)
	r.replies = r.replies[:0]
	r.sendAnswers()
}

func (r *fleetActor) spawn(c actor.Context, e reconciler.Spawn) {
	handle := session.Spawn(c, r.deps.Sessions, e.Spec, e.Session)
	r.sessions[e.Session] = &liveSession{spec: e.Spec, handle: handle}
	r.byActor[handle.PID().Id] = e.Session
	r.connectSpawned(e)
}

func (r *fleetActor) stop(e reconciler.Stop) {
	if ls := r.sessions[e.Session]; ls != nil {
		ls.handle.Stop()
	}
}

func (r *fleetActor) forget(id uint64) {
	r.connectEnded(id)
	if ls := r.sessions[id]; ls != nil {
		delete(r.byActor, ls.handle.PID().Id)
		delete(r.sessions, id)
	}
}

func (r *fleetActor) sessionReady(c actor.Context, m *session.Ready) {
	if ls := r.sessions[m.ID]; ls != nil {
		ls.stderr = m.Stderr
	}
	r.connectEnded(m.ID)
	r.step(c, reconciler.SessionReady{Now: r.now(), Server: m.Server, Session: m.ID, PID: m.PID, Tools: m.Tools,
		Prompts: m.Prompts, Resources: m.Resources, Templates: m.Templates, Skipped: m.Skipped,
		Transport: m.Transport})
}

// loadCache turns the fleet's catalog cache on with what Start read
// from disk (unless the cache is off).
func (r *fleetActor) loadCache(c actor.Context) {
	if r.deps.Cache != nil {
		r.step(c, reconciler.CacheLoaded{Entries: r.deps.Cached})
	}
}

func (r *fleetActor) retryDue(c actor.Context, m *retryDue) {
	r.retries.fired(m.server, m.token)
	r.step(c, reconciler.RetryDue{Now: r.now(), Server: m.server, Token: m.token})
}

func (r *fleetActor) stopTimers() {
	r.retries.cancelAll()
	r.idles.cancelAll()
}

// HandleFailure makes the fleet actor the supervisor of its children, the
// session actors: one that panics is stopped, never restarted. Its
// Terminated then reports the panic as the session's failure.
func (r *fleetActor) HandleFailure(_ *actor.ActorSystem, sup actor.Supervisor, child *actor.PID, _ *actor.RestartStatistics, reason, _ any) {
	r.crashed[child.Id] = fmt.Sprint(reason)
	sup.StopChildren(child)
}

// terminated turns the end of a crashed session actor into its failure and
// its stop (its lifeline was cancelled when it stopped: the process group
// is killed after the stop grace at the latest).
func (r *fleetActor) terminated(c actor.Context, m *actor.Terminated) {
	reason, crashed := r.crashed[m.Who.Id]
	if !crashed {
		return // an ordinary stop: its sessionStopped is on its way
	}
	delete(r.crashed, m.Who.Id)
	id, ok := r.byActor[m.Who.Id]
	if !ok {
		return
	}
	spec := r.sessions[id].spec
	server := spec.Name
	r.forget(id)
	msg := r.deps.Sessions.Redactor(spec).Redact("session crashed: " + reason)
	r.log.Error("session actor crashed; stopped", zap.String("server", server), zap.Uint64("session", id), zap.String("reason", msg))
	now := r.now()
	r.step(c, reconciler.SessionFailed{Now: now, Jitter: r.rng.Float64(), Failure: &messages.ServerFailed{
		Server: server, Session: id, Error: msg, ExitCode: -1,
	}})
	r.step(c, reconciler.SessionStopped{Now: now, Server: server, Session: id})
}

// refreshView swaps in a new snapshot: the rows of the named servers are
// rebuilt from the fleet, the others are shared with the previous one.
func (r *fleetActor) refreshView(names []string) {
	meta := view.Meta{Generation: r.fleet.Generation(), Observed: r.fleet.ObservedGeneration(), ConfigErrors: r.fleet.Diagnostics(),
		ConfigFiles: r.deps.Policy.ConfigPaths}
	r.view.Store(r.view.Load().Next(names, r.buildRow, meta))
}

// buildRow is the fleet's projection of one server (nil if it is not in
// the fleet) plus what only the shell knows: the session that takes its
// requests, a ready stdio server's live stderr, the default timeouts.
func (r *fleetActor) buildRow(name string) *Row {
	fr, ok := r.fleet.Row(name)
	if !ok {
		return nil
	}
	var handle *session.Handle
	var stderr func() []string
	if ls := r.sessions[fr.Status.Session]; ls != nil {
		handle, stderr = ls.handle, ls.stderr
	}
	return view.NewRow(fr, handle, stderr, r.deps.Defaults)
}

// reply hands a resync answer to whoever registered its id; the
// registration ends with the ResyncCompleted.
func (r *fleetActor) reply(rp reconciler.Reply) {
	w, ok := r.waiters[rp.ID]
	if !ok {
		return
	}
	select {
	case w <- rp.Message:
	default: // the waiter gave up and nobody drains it; never block the mailbox
	}
	if _, done := rp.Message.(*messages.ResyncCompleted); done {
		delete(r.waiters, rp.ID)
	}
}
