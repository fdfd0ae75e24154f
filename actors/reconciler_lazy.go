package actors

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// The shell's half of lazy servers (the rules are the fleet's, in
// reconciler/fleet_lazy.go): requests ask the reconciler for a lazy
// server (useServer) and hold it until they end (releaseServer); idle
// timers run on the quartz clock.

// Messages private to the reconciler actor, for lazy servers.
type (
	// useServer asks for server on behalf of one request: reply
	// (buffered, 1) gets the session to send it to once the server is
	// ready, or why not. Whoever sends it sends a releaseServer with the
	// same id once the request is done, or once it gives up waiting.
	useServer struct {
		id     string
		server string
		reply  chan<- useAnswer
	}
	releaseServer struct {
		id     string
		server string
	}
	useAnswer struct {
		handle *session.Handle
		err    error
	}
	idleDue struct {
		server string
		token  uint64
	}
)

func (r *reconcilerActor) useServer(c actor.Context, m *useServer) {
	r.users[m.id] = m.reply
	r.step(c, reconciler.ServerWanted{Now: r.now(), ID: m.id, Server: m.server})
}

func (r *reconcilerActor) releaseServer(c actor.Context, m *releaseServer) {
	delete(r.users, m.id) // a wait given up gets no answer any more
	r.step(c, reconciler.ServerReleased{Now: r.now(), ID: m.id, Server: m.server})
}

// answerUse queues the answer to a use for flush, after the view swap.
func (r *reconcilerActor) answerUse(id string, a useAnswer) {
	if reply, ok := r.users[id]; ok {
		r.answers = append(r.answers, queuedAnswer{reply: reply, answer: a})
	}
}

type queuedAnswer struct {
	reply  chan<- useAnswer
	answer useAnswer
}

func (r *reconcilerActor) grant(e reconciler.Grant) {
	ls := r.sessions[e.Session]
	if ls == nil {
		r.answerUse(e.ID, useAnswer{err: fmt.Errorf("%w: %q", ErrNotReady, e.Server)})
		return
	}
	r.answerUse(e.ID, useAnswer{handle: ls.handle})
}

func (r *reconcilerActor) refuse(e reconciler.Refuse) {
	r.answerUse(e.ID, useAnswer{err: fmt.Errorf("%w: %q: %s", ErrNotReady, e.Server, e.Error)})
}

// sendAnswers hands out the queued answers; each reply channel holds one.
func (r *reconcilerActor) sendAnswers() {
	for _, q := range r.answers {
		select {
		case q.reply <- q.answer:
		default: // answered already; never block the mailbox
		}
	}
	clear(r.answers)
	r.answers = r.answers[:0]
}

func (r *reconcilerActor) idleDue(c actor.Context, m *idleDue) {
	r.idles.fired(m.server, m.token)
	r.step(c, reconciler.IdleDue{Now: r.now(), Server: m.server, Token: m.token})
}

// use holds a lazy server for one request: it asks the reconciler for
// it, which starts it if it is idle, and waits (at most the server's
// connect timeout, since a start takes that long at most) for the session
// to send the request to. release ends the hold; call it exactly once,
// after the request.
func (s *Supervisor) use(ctx context.Context, row *serverRow) (session useAnswer, release func(), err error) {
	id := fmt.Sprintf("use-%d", s.uses.Add(1))
	server := row.Status.Name
	release = func() { s.sys.Root.Send(s.pids.Reconciler, &releaseServer{id: id, server: server}) }
	reply := make(chan useAnswer, 1)
	s.sys.Root.Send(s.pids.Reconciler, &useServer{id: id, server: server, reply: reply})
	wait := row.ConnectTimeout
	bound := s.env.clock.NewTimer(wait, "supervisor", "start-wait")
	defer bound.Stop("supervisor", "start-wait")
	select {
	case a := <-reply:
		if a.err != nil {
			release()
			return useAnswer{}, nil, s.replyErr(a.err)
		}
		return a, release, nil
	case <-ctx.Done():
		release()
		return useAnswer{}, nil, fmt.Errorf("%w: %w", ErrCanceled, ctx.Err())
	case <-s.env.ending.done:
		return useAnswer{}, nil, s.Err()
	case <-bound.C:
		release()
		err := fmt.Errorf("%w: %q did not start within %s (connect timeout)", ErrNotReady, server, wait)
		if now, ok := s.view.Load().Row(server); ok && now.Status.LastError != "" {
			err = fmt.Errorf("%w; last error: %s", err, now.Status.LastError)
		}
		return useAnswer{}, nil, err
	}
}

// startWait is the connect timeout that bounds a request's wait for a
// lazy server: its own, else the default.
func startWait(own, def time.Duration) time.Duration {
	if own > 0 {
		return own
	}
	return def
}
