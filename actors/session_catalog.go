package actors

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// The session's catalog beyond connect: re-lists on list_changed and the
// resource subscriptions the session holds upstream. Every listing runs
// under the list timeout on a goroutine counted in env.work. (Requests,
// prompts/get and resources/read among them, take the session's lane:
// session_lane.go.)

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
	return r != nil && r.ProtocolVersion >= "2026-07-28"
}

// Reports from a session to the reconciler, for its catalog.
type sessionResourceUpdated struct {
	server string
	id     uint64
	uri    string
}

// kindSlot is the index of one kind in sessionActor.listN.
func kindSlot(k catalogKinds) int {
	switch k {
	case kindPrompts:
		return 1
	case kindResources:
		return 2
	default:
		return 0
	}
}

func kindMethod(k catalogKinds) string {
	switch k {
	case kindPrompts:
		return "prompts/list"
	case kindResources:
		return "resources/list"
	default:
		return "tools/list"
	}
}

func kindNoun(k catalogKinds) string {
	switch k {
	case kindPrompts:
		return "prompts"
	case kindResources:
		return "resources"
	default:
		return "tools"
	}
}

// relist lists the kinds again, each on a goroutine of its own under the
// list timeout; a newer list of a kind supersedes an older one in flight.
func (s *sessionActor) relist(c actor.Context, kinds catalogKinds) {
	cs := s.cs
	if cs == nil {
		// The notification can overtake the lifeline's connected report:
		// list again once the session is ours.
		if !s.failed {
			s.relistPending |= kinds
		}
		return
	}
	for _, k := range []catalogKinds{kindTools, kindPrompts, kindResources} {
		if kinds&k == 0 {
			continue
		}
		s.listN[kindSlot(k)]++
		n, self, root, stop := s.listN[kindSlot(k)], c.Self(), c.ActorSystem().Root, s.ctx
		timeout, clock, server := s.env.opts.ListTimeout, s.env.clock, s.spec.Name
		s.env.work.Add(1)
		go func() {
			defer s.env.work.Done()
			ctx, cancel := context.WithCancel(stop)
			defer cancel()
			timer := clock.AfterFunc(timeout, cancel, "session", "list")
			cat, err := listCatalog(ctx, server, cs, k)
			if !timer.Stop() && err != nil && stop.Err() == nil {
				err = fmt.Errorf("%s: no complete answer within %s (list timeout): %w", kindMethod(k), timeout, err)
			}
			root.Send(self, &catalogListed{kinds: k, n: n, cat: cat, err: err})
		}()
	}
}

func (s *sessionActor) catalogListed(c actor.Context, m *catalogListed) {
	if m.n != s.listN[kindSlot(m.kinds)] || s.cs == nil {
		return // a newer list is on its way, or the session is gone
	}
	if errors.Is(m.err, errListUnbounded) {
		s.listFailed(c, m.err)
		return
	}
	if m.err != nil {
		s.log.Warn("list "+kindNoun(m.kinds)+" after list_changed", zap.String("error", s.redactor.Redact(m.err.Error())))
		return
	}
	c.Send(c.Parent(), &sessionCatalog{server: s.spec.Name, id: s.id, cat: m.cat})
}

// callTimeout is the session's own call timeout, else the default.
func (s *sessionActor) callTimeout() time.Duration {
	if s.spec.CallTimeout > 0 {
		return s.spec.CallTimeout
	}
	return s.env.opts.CallTimeout
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
	timeout, clock, redactor := s.callTimeout(), s.env.clock, s.redactor
	s.env.work.Add(1)
	go func() {
		defer s.env.work.Done()
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
			err = fmt.Errorf("%w: %s", ErrUpstream, redactor.Redact(err.Error()))
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
	stop, timeout, clock := s.ctx, s.callTimeout(), s.env.clock
	s.env.work.Add(1)
	go func() {
		defer s.env.work.Done()
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
	c.Send(c.Parent(), &sessionResourceUpdated{server: s.spec.Name, id: s.id, uri: m.uri})
}

// catalogHandlers are the go-sdk client options that follow the server's
// catalog: its list_changed and resources/updated notifications, each
// sent to the session actor.
func (s *sessionActor) catalogHandlers(root *actor.RootContext, self *actor.PID) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			root.Send(self, &listChanged{kinds: kindTools})
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			root.Send(self, &listChanged{kinds: kindPrompts})
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			root.Send(self, &listChanged{kinds: kindResources})
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			if req.Params != nil {
				root.Send(self, &resourceUpdated{uri: req.Params.URI})
			}
		},
	}
}
