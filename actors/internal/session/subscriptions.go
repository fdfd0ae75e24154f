package session

import (
	"context"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
)

// The resource subscriptions a session holds upstream: one per URI,
// asked for on a goroutine under the call timeout, renewed by the fleet
// actor on a new session (Handle.Subscribe).

// Messages private to the session actor, for its catalog.
type (
	// subscribeUpstream asks the session to hold a subscription to uri;
	// reply (buffered, may be nil) gets its outcome.
	subscribeUpstream struct {
		uri   string
		reply chan<- error
	}
	unsubscribeUpstream struct{ uri string }
	upstreamSubscribed  struct {
		uri string
		sub *upstreamSub
		err error
	}
	// resourceUpdated is a notifications/resources/updated.
	resourceUpdated struct{ uri string }
	// subscriptionsAcked is a notifications/subscriptions/acknowledged
	// (2026-07-28) naming the URIs the server now sends updates of.
	subscriptionsAcked struct{ uris []string }
)

// upstreamSub is one subscription the session holds (done) or is asking
// for (waiters wait for the answer).
type upstreamSub struct {
	done    bool
	waiters []chan<- error
	// acked is closed when the server acknowledged it (2026-07-28, where
	// subscribing is a listen stream that the go-sdk opens and does not
	// wait for).
	acked     chan struct{}
	ackClosed bool
}

// ackMiddleware tells the actor about subscription acknowledgements,
// which the go-sdk handles and keeps to itself.
func ackMiddleware(root *actor.RootContext, self *actor.PID) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				if r, ok := req.(*mcp.ClientRequest[*mcp.SubscriptionsAcknowledgedParams]); ok && r.Params != nil && len(r.Params.Notifications.ResourceSubscriptions) > 0 {
					root.Send(self, &subscriptionsAcked{uris: r.Params.Notifications.ResourceSubscriptions})
				}
			}
			return next(ctx, method, req)
		}
	}
}

// acked marks the subscriptions the server acknowledged.
func (s *sessionActor) acked(m *subscriptionsAcked) {
	for _, uri := range m.uris {
		if sub, ok := s.subs[uri]; ok && !sub.ackClosed {
			sub.ackClosed = true
			close(sub.acked)
		}
	}
}

// newProtocol reports whether a session speaks 2026-07-28 or later.
func newProtocol(cs *mcp.ClientSession) bool {
	r := cs.InitializeResult()
	return r != nil && r.ProtocolVersion >= relay.StatelessProtocol
}

// subscribe holds a subscription to m.uri upstream: asked for once per
// session and URI, whoever asks again waits for (or gets) that answer.
func (s *sessionActor) subscribe(c actor.Context, m *subscribeUpstream) {
	answer := func(err error) {
		if m.reply != nil {
			m.reply <- err
		}
	}
	cs := s.cs
	if cs == nil {
		answer(ErrNotReady)
		return
	}
	if sub, ok := s.subs[m.uri]; ok {
		if sub.done {
			answer(nil)
		} else if m.reply != nil {
			sub.waiters = append(sub.waiters, m.reply)
		}
		return
	}
	sub := &upstreamSub{acked: make(chan struct{})}
	if m.reply != nil {
		sub.waiters = append(sub.waiters, m.reply)
	}
	if s.subs == nil {
		s.subs = map[string]*upstreamSub{}
	}
	s.subs[m.uri] = sub
	self, root, stop, uri := c.Self(), c.ActorSystem().Root, s.ctx, m.uri
	timeout, clock, redactor := s.callTimeout(), s.deps.Clock, s.redactor
	s.deps.Work.Add(1)
	go func() {
		defer s.deps.Work.Done()
		ctx, cancel := context.WithCancel(stop)
		defer cancel()
		timer := clock.AfterFunc(timeout, cancel, "session", "subscribe")
		err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
		if err == nil && newProtocol(cs) {
			// Sent, not answered: the answer is the acknowledgement.
			select {
			case <-sub.acked:
			case <-ctx.Done():
				err = ctx.Err()
			}
		}
		fired := !timer.Stop()
		switch {
		case err == nil:
		case stop.Err() != nil:
			err = ErrNotReady
		case fired:
			err = fmt.Errorf("%w after %s", ErrCallTimeout, timeout)
		default:
			err = upstreamError(redactor, err)
		}
		root.Send(self, &upstreamSubscribed{uri: uri, sub: sub, err: err})
	}()
}

func (s *sessionActor) subscribed(_ actor.Context, m *upstreamSubscribed) {
	for _, w := range m.sub.waiters {
		w <- m.err
	}
	m.sub.waiters = nil
	switch {
	case s.subs[m.uri] != m.sub:
		// Dropped while it was being asked for: undo it.
		if m.err == nil {
			s.unsubscribeUpstream(m.uri)
		}
	case m.err != nil:
		delete(s.subs, m.uri)
		s.log.Warn("resource subscription failed", zap.String("error", m.err.Error()))
	default:
		m.sub.done = true
	}
	if !m.sub.ackClosed {
		m.sub.ackClosed = true
		close(m.sub.acked)
	}
}

func (s *sessionActor) unsubscribe(_ actor.Context, m *unsubscribeUpstream) {
	sub, ok := s.subs[m.uri]
	if !ok {
		return
	}
	delete(s.subs, m.uri)
	if sub.done {
		s.unsubscribeUpstream(m.uri)
	}
}

// unsubscribeUpstream ends a subscription on a goroutine, under the call
// timeout; its outcome only matters to the server.
func (s *sessionActor) unsubscribeUpstream(uri string) {
	cs := s.cs
	if cs == nil {
		return
	}
	stop, timeout, clock := s.ctx, s.callTimeout(), s.deps.Clock
	s.deps.Work.Add(1)
	go func() {
		defer s.deps.Work.Done()
		ctx, cancel := context.WithCancel(stop)
		defer cancel()
		timer := clock.AfterFunc(timeout, cancel, "session", "unsubscribe")
		defer timer.Stop()
		_ = cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	}()
}

// resourceUpdated relays an update of a URI this session subscribed to.
func (s *sessionActor) resourceUpdated(c actor.Context, m *resourceUpdated) {
	if _, ok := s.subs[m.uri]; !ok {
		return // not asked for (or no longer): not relayed
	}
	c.Send(c.Parent(), &ResourceUpdated{Server: s.spec.Name, ID: s.id, URI: m.uri})
}
