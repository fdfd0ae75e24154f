package session

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
)

// A request (a tool call, a prompt get, a resource read, a completion)
// runs on its caller's goroutine, not through the session actor's
// mailbox. While its session is connected, the actor publishes a
// callLane, everything a request needs of the session, in the Handle
// that the rows routing to it hold; Handle.Run takes the lane and runs
// the request. A request then costs no hand-off
// between goroutines beyond the connection's own: through the mailbox it
// cost three (to the actor, to a call goroutine, and back to the caller),
// each a wait for a core on a busy machine.
//
// The actor still owns the session. It publishes the lane once the
// session is connected, before it reports the server ready, and
// withdraws it as soon as the session is lost, failed or told to stop. A
// request that took the lane just before runs on a session whose stop
// context has ended (or soon will: the lifeline closes the connection
// then), and is answered not ready.

// callLane is a connected session as its requests see it. Nothing in it
// changes once published.
type callLane struct {
	cs       *mcp.ClientSession
	stop     context.Context // ends when the session must stop
	calls    chan struct{}   // bounds concurrent requests
	clock    quartz.Clock
	timeout  time.Duration // the session's call timeout
	redactor *sessionRedactor
	relay    *relay.Relay
	// authz authorizes a remote session (nil if none); stepUp tells the
	// actor that a request needs a login only the user can give.
	authz  *oauth.Handler
	stepUp func()
}

// Request is one request for a session: Do sends it with the live client
// session (completing its params with relay.Params: progress token, log
// level), under the Timeout (zero: the session's) and the caller's Ctx.
// ResetOnProgress and Timeout are the server's settings as the fleet
// knows them now, which may have changed since the session started; Opts
// are the caller's.
type Request struct {
	Ctx             context.Context
	Timeout         time.Duration
	Do              func(ctx context.Context, cs *mcp.ClientSession) (any, error)
	ResetOnProgress bool
	Opts            relay.CallOptions
}

// Run runs req on the caller's goroutine over the session's lane; a
// session not connected (yet, or any more) is ErrNotReady at once.
func (h *Handle) Run(req *Request) (any, error) {
	lane := h.lane.Load()
	if lane == nil {
		select {
		case <-h.gone:
			return nil, fmt.Errorf("%w: %q's session ended", ErrNotReady, h.server)
		default:
			return nil, fmt.Errorf("%w: %q is not connected", ErrNotReady, h.server)
		}
	}
	return lane.run(req)
}

// run runs m on the caller's goroutine, with the same bound on
// concurrent requests, the same timeout and the same error classes for
// every kind of request.
func (l *callLane) run(m *Request) (any, error) {
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = l.timeout
	}
	ctx, cancel := context.WithCancel(m.Ctx)
	defer cancel()
	defer context.AfterFunc(l.stop, cancel)()
	timer := l.clock.AfterFunc(timeout, cancel, "session", "call")
	defer timer.Stop()
	var reset func()
	if m.ResetOnProgress {
		reset = func() { timer.Reset(timeout, "session", "call") }
		if m.Opts.Progress == nil {
			// Asked for all the same: progress is what keeps the call alive.
			m.Opts.Progress = func(messages.Progress) {}
		}
	}
	select {
	case l.calls <- struct{}{}:
		defer func() { <-l.calls }()
	case <-ctx.Done():
	}
	inCall, end := l.relay.Begin(ctx, m.Opts, reset)
	defer end()
	res, err := m.Do(inCall.Context(), l.cs)
	l.relay.Drain(ctx, inCall)
	switch {
	case err == nil:
	case m.Ctx.Err() != nil:
		err = fmt.Errorf("%w: %w", ErrCanceled, m.Ctx.Err())
	case l.authz != nil && l.authz.NeedsAuth() != nil:
		// Before the stop: a refused authorization can end the session
		// (its connection closes, it goes needs-auth) before this call
		// is told why, and the why is what its caller needs.
		err = upstreamError(l.redactor, err)
		if l.stop.Err() == nil {
			l.stepUp() // a step-up only a login can give
		}
	case l.stop.Err() != nil:
		err = ErrNotReady
	case ctx.Err() != nil:
		err = fmt.Errorf("%w after %s", ErrCallTimeout, timeout)
	default:
		err = upstreamError(l.redactor, err)
	}
	return res, err
}

// publishLane makes the connected session cs available to requests.
func (s *sessionActor) publishLane(c actor.Context, cs *mcp.ClientSession) {
	self, root := c.Self(), c.ActorSystem().Root
	s.handle.lane.Store(&callLane{
		cs: cs, stop: s.ctx, calls: s.calls, clock: s.deps.Clock, timeout: s.callTimeout(),
		redactor: s.redactor, relay: s.relay, authz: s.oauth,
		stepUp: func() { root.Send(self, &authNeeded{}) },
	})
}

// withdrawLane stops new requests from reaching the session.
func (s *sessionActor) withdrawLane() { s.handle.lane.Store(nil) }

// dropSession lets go of a session that is lost or failed: nothing more
// is asked of it, by the actor (cs) or by requests (the lane).
func (s *sessionActor) dropSession() {
	s.cs = nil
	s.withdrawLane()
}

// callTimeout is the session's own call timeout, else the default.
func (s *sessionActor) callTimeout() time.Duration {
	if s.spec.CallTimeout > 0 {
		return s.spec.CallTimeout
	}
	return s.deps.CallTimeout
}
