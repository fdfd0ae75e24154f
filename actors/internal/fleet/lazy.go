package fleet

import (
	"context"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// The shell's half of lazy servers (the rules are the fleet's, in
// reconciler/fleet_lazy.go): requests ask the fleet actor for a lazy
// server (useServer) and hold it until they end (releaseServer); idle
// timers run on the quartz clock.

// Messages private to the fleet actor, for lazy servers.
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

func (r *fleetActor) useServer(c actor.Context, m *useServer) {
	r.users[m.id] = m.reply
	r.step(c, reconciler.ServerWanted{Now: r.now(), ID: m.id, Server: m.server})
}

func (r *fleetActor) releaseServer(c actor.Context, m *releaseServer) {
	delete(r.users, m.id) // a wait given up gets no answer any more
	r.step(c, reconciler.ServerReleased{Now: r.now(), ID: m.id, Server: m.server})
}

// answerUse queues the answer to a use for flush, after the view swap.
func (r *fleetActor) answerUse(id string, a useAnswer) {
	if reply, ok := r.users[id]; ok {
		r.answers = append(r.answers, queuedAnswer{reply: reply, answer: a})
	}
}

type queuedAnswer struct {
	reply  chan<- useAnswer
	answer useAnswer
}

func (r *fleetActor) grant(e reconciler.Grant) {
	ls := r.sessions[e.Session]
	if ls == nil {
		r.answerUse(e.ID, useAnswer{err: fmt.Errorf("%w: %q", session.ErrNotReady, e.Server)})
		return
	}
	r.answerUse(e.ID, useAnswer{handle: ls.handle})
}

func (r *fleetActor) refuse(e reconciler.Refuse) {
	r.answerUse(e.ID, useAnswer{err: fmt.Errorf("%w: %q: %s", session.ErrNotReady, e.Server, e.Error)})
}

// sendAnswers hands out the queued answers; each reply channel holds one.
func (r *fleetActor) sendAnswers() {
	for _, q := range r.answers {
		select {
		case q.reply <- q.answer:
		default: // answered already; never block the mailbox
		}
	}
	clear(r.answers)
	r.answers = r.answers[:0]
}

func (r *fleetActor) idleDue(c actor.Context, m *idleDue) {
	r.idles.fired(m.server, m.token)
	r.step(c, reconciler.IdleDue{Now: r.now(), Server: m.server, Token: m.token})
}

// Use holds a lazy server for one request (or waits for any server that
// is starting, for a request that came early: starting.go): it
// asks the fleet actor for it, which starts it if it is idle, and waits
// for the session to send the request to: at most the server's call timeout, or its connect
// timeout if that is longer (a start takes that long at most, and one
// past the fleet's MaxLazyStarts first waits its turn, pending). release
// ends the hold; call it exactly once, after the request.
func (t *Tree) Use(ctx context.Context, row *Row) (handle *session.Handle, release func(), err error) {
	id := fmt.Sprintf("use-%d", t.uses.Add(1))
	server := row.Status.Name
	release = func() { t.sys.Root.Send(t.pids.Fleet, &releaseServer{id: id, server: server}) }
	reply := make(chan useAnswer, 1)
	t.sys.Root.Send(t.pids.Fleet, &useServer{id: id, server: server, reply: reply})
	wait := max(row.ConnectTimeout, row.CallTimeout)
	bound := t.deps.Clock.NewTimer(wait, "supervisor", "start-wait")
	defer bound.Stop("supervisor", "start-wait")
	select {
	case a := <-reply:
		if a.err != nil {
			release()
			return nil, nil, a.err // the Supervisor tells a failed tree's instead
		}
		return a.handle, release, nil
	case <-ctx.Done():
		release()
		return nil, nil, fmt.Errorf("%w: %w", session.ErrCanceled, ctx.Err())
	case <-t.ending.done:
		return nil, nil, t.Err()
	case <-bound.C:
		release()
		err := fmt.Errorf("%w: %q did not start within %s (the longer of its connect and call timeouts)", session.ErrNotReady, server, wait)
		if now, ok := t.Snapshot().Row(server); ok && now.Status.LastError != "" {
			err = fmt.Errorf("%w; last error: %s", err, now.Status.LastError)
		}
		return nil, nil, err
	}
}
