package session

import (
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Handle is one session actor as the rest of mcpvisor holds it: the fleet
// actor, which spawned it, and the view's rows, which route requests to
// it. Its methods send the actor its commands (each a message of this
// package, handled on the actor's goroutine); Run takes the lane requests
// run on. Safe for concurrent use.
type Handle struct {
	server string
	pid    *actor.PID
	root   *actor.RootContext
	gone   chan struct{}            // closed once the actor has stopped
	lane   atomic.Pointer[callLane] // nil unless the session is connected
	// unsolicited is the server's allowUnsolicitedRequests, which its
	// relay reads at each request (live: AllowUnsolicited).
	unsolicited atomic.Bool
}

// Spawn starts session id of a server of spec as a child of c, the fleet
// actor: its parent gets its reports (Ready, Relisted, Stopped,
// ResourceUpdated, Spawned, and a *messages.ServerFailed) and is its
// supervisor, which must never restart it.
func Spawn(c actor.Context, deps *Deps, spec messages.ServerSpec, id uint64) *Handle {
	h := &Handle{server: spec.Name, root: c.ActorSystem().Root, gone: make(chan struct{})}
	h.unsolicited.Store(spec.AllowUnsolicitedRequests)
	h.pid = c.SpawnPrefix(newProps(deps, spec, id, h), "session-"+spec.Name+"-")
	return h
}

// PID is the session actor's (its parent sees it in Terminated).
func (h *Handle) PID() *actor.PID { return h.pid }

// Stop asks for a graceful stop: the session closes its connection (the
// stop grace, then its process group is signalled) and reports Stopped.
func (h *Handle) Stop() { h.root.Send(h.pid, &stopSession{}) }

// Subscribe has the session hold a subscription to uri upstream; reply
// (buffered; may be nil) gets its outcome.
func (h *Handle) Subscribe(uri string, reply chan<- error) {
	h.root.Send(h.pid, &subscribeUpstream{uri: uri, reply: reply})
}

// Unsubscribe drops the session's subscription to uri.
func (h *Handle) Unsubscribe(uri string) { h.root.Send(h.pid, &unsubscribeUpstream{uri: uri}) }

// UpdateRoots gives the running session its server's configured roots,
// changed live.
func (h *Handle) UpdateRoots(roots []string) { h.root.Send(h.pid, &updateRoots{roots: roots}) }

// AllowUnsolicited gives the running session its server's
// allowUnsolicitedRequests, changed live: its next request outside a
// call is admitted or refused by it.
func (h *Handle) AllowUnsolicited(allow bool) { h.unsolicited.Store(allow) }

// RefreshRoots has a session whose roots are the embedder's read them
// again, and announce a change.
func (h *Handle) RefreshRoots() { h.root.Send(h.pid, &refreshRoots{}) }

// SetLogLevel asks the session's server to log at level; done (buffered;
// may be nil) gets one value once it answered or will not be asked.
func (h *Handle) SetLogLevel(level string, done chan<- struct{}) {
	h.root.Send(h.pid, &setLogLevel{level: level, done: done})
}
