package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Re-lists after list_changed: each kind on a goroutine of its own under
// the list timeout (counted in Deps.Work); a newer list of a kind
// supersedes one in flight. The first listing is part of the connect
// (lifeline.go).

// catalogHandlers are the go-sdk client options that follow the server's
// catalog: its list_changed and resources/updated notifications, each
// sent to the session actor.
func (s *sessionActor) catalogHandlers(root *actor.RootContext, self *actor.PID) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			root.Send(self, &listChanged{kinds: KindTools})
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			root.Send(self, &listChanged{kinds: KindPrompts})
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			root.Send(self, &listChanged{kinds: KindResources})
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			if req.Params != nil {
				root.Send(self, &resourceUpdated{uri: req.Params.URI})
			}
		},
	}
}

// relist lists the kinds again, each on a goroutine of its own under the
// list timeout; a newer list of a kind supersedes an older one in flight.
func (s *sessionActor) relist(c actor.Context, kinds Kinds) {
	cs := s.cs
	if cs == nil {
		// The notification can overtake the lifeline's connected report:
		// list again once the session is ours.
		if !s.failed {
			s.relistPending |= kinds
		}
		return
	}
	for _, k := range []Kinds{KindTools, KindPrompts, KindResources} {
		if kinds&k == 0 {
			continue
		}
		s.listN[kindSlot(k)]++
		n, self, root, stop := s.listN[kindSlot(k)], c.Self(), c.ActorSystem().Root, s.ctx
		timeout, clock, server, red := s.deps.ListTimeout, s.deps.Clock, s.spec.Name, s.catalogRedactor
		s.deps.Work.Add(1)
		go func() {
			defer s.deps.Work.Done()
			ctx, cancel := context.WithCancel(stop)
			defer cancel()
			timer := clock.AfterFunc(timeout, cancel, "session", "list")
			cat, err := listCatalog(ctx, server, cs, k, red)
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
	c.Send(c.Parent(), &Relisted{Server: s.spec.Name, ID: s.id, Catalog: m.cat})
}

// kindSlot is the index of one kind in sessionActor.listN.
func kindSlot(k Kinds) int {
	switch k {
	case KindPrompts:
		return 1
	case KindResources:
		return 2
	default:
		return 0
	}
}

// kindMethod names the listing method of one kind.
func kindMethod(k Kinds) string {
	switch k {
	case KindPrompts:
		return "prompts/list"
	case KindResources:
		return "resources/list"
	default:
		return "tools/list"
	}
}

// kindNoun names one kind's items.
func kindNoun(k Kinds) string {
	switch k {
	case KindPrompts:
		return "prompts"
	case KindResources:
		return "resources"
	default:
		return "tools"
	}
}
