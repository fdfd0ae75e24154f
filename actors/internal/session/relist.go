package session

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Re-lists after list_changed. A notification says only that a kind may
// have changed, never what: the re-list reads the whole kind again
// (level-triggered, as a reconciler is). So notifications of a kind that
// arrive together need one re-list, not one each. A server once sent
// 45,634 tools/list_changed in ten seconds; each started a tools/list and
// none was cancelled: 52,089 listings, a core for 30 s, 400-700 MB.
//
// Each kind therefore has (relister):
//
//   - at most one re-list in flight, on a goroutine of its own under the
//     list timeout (counted in Deps.Work);
//   - a dirty mark: a notification that arrives while a re-list is in
//     flight, or too soon after the last began, is remembered, and one
//     more re-list runs once both are over, so the last change is always
//     listed;
//   - at least Limits.RelistInterval between the starts of two re-lists,
//     timed on the quartz clock (tags "session", "relist-interval"). The
//     first notification after a quiet spell is listed at once.
//
// The notification handlers send at most one listChanged per kind to the
// mailbox until the actor has taken it, so a flood does not queue one
// message per notification either. The first listing is part of the
// connect (lifeline.go).

// relister is one kind's re-list state; the actor's alone.
type relister struct {
	// notified is set by the kind's list_changed handler when it sends
	// listChanged, and cleared by the actor when it takes it: the
	// handlers' only state, hence atomic.
	notified atomic.Bool
	// dirty: a notification came that no re-list begun since covers.
	dirty bool
	// inFlight: a re-list is running.
	inFlight bool
	// cooling runs from a re-list's start for RelistInterval; nil once it
	// fired (or with no interval).
	cooling *quartz.Timer
	// n is the generation of the newest re-list, so a result or a timer
	// of another is recognised.
	n uint64
}

// Messages of the re-list machinery, private to the session actor.
type (
	// listChanged is a notifications/{tools,prompts,resources}/list_changed.
	listChanged struct{ kinds Kinds }
	// catalogListed is a re-list's result.
	catalogListed struct {
		kinds Kinds
		n     uint64
		cat   Catalog
		err   error
	}
	// relistCooled says the interval since re-list n of a kind began is
	// over.
	relistCooled struct {
		kinds Kinds
		n     uint64
	}
)

// relistKinds are the kinds that are re-listed, each on its own.
var relistKinds = [...]Kinds{KindTools, KindPrompts, KindResources}

// catalogHandlers are the go-sdk client options that follow the server's
// catalog: its list_changed and resources/updated notifications, each
// sent to the session actor.
func (s *sessionActor) catalogHandlers(root *actor.RootContext, self *actor.PID) *mcp.ClientOptions {
	notify := func(k Kinds) {
		if s.relists[kindSlot(k)].notified.CompareAndSwap(false, true) {
			root.Send(self, &listChanged{kinds: k})
		}
	}
	return &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { notify(KindTools) },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { notify(KindPrompts) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { notify(KindResources) },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			if req.Params != nil {
				root.Send(self, &resourceUpdated{uri: req.Params.URI})
			}
		},
	}
}

// listChanged marks the kinds dirty and re-lists those that may start.
func (s *sessionActor) listChanged(c actor.Context, kinds Kinds) {
	for _, k := range relistKinds {
		if kinds&k == 0 {
			continue
		}
		r := &s.relists[kindSlot(k)]
		r.notified.Store(false) // before the mark: a later notification sends again
		if !s.failed {
			r.dirty = true
		}
		s.relistIfDue(c, k)
	}
}

// relistDirty re-lists every dirty kind that may start: once the session
// is connected (a notification can overtake the lifeline's connected
// report).
func (s *sessionActor) relistDirty(c actor.Context) {
	for _, k := range relistKinds {
		s.relistIfDue(c, k)
	}
}

// relistIfDue starts a re-list of kind k if it is dirty, none is in
// flight, the interval since the last one began is over and the session
// is connected.
func (s *sessionActor) relistIfDue(c actor.Context, k Kinds) {
	r := &s.relists[kindSlot(k)]
	if !r.dirty || r.inFlight || r.cooling != nil || s.cs == nil {
		return
	}
	r.dirty, r.inFlight = false, true
	r.n++
	n, self, root := r.n, c.Self(), c.ActorSystem().Root
	if interval := s.deps.RelistInterval; interval > 0 {
		r.cooling = s.deps.Clock.AfterFunc(interval, func() { root.Send(self, &relistCooled{kinds: k, n: n}) }, "session", "relist-interval")
	}
	s.startRelist(self, root, k, n)
}

// startRelist lists kind k on a goroutine of its own under the list
// timeout; it ends by sending catalogListed.
func (s *sessionActor) startRelist(self *actor.PID, root *actor.RootContext, k Kinds, n uint64) {
	cs, stop := s.cs, s.ctx
	timeout, clock, server, red := s.deps.ListTimeout, s.deps.Clock, s.spec.Name, s.redactor.catalog()
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

func (s *sessionActor) catalogListed(c actor.Context, m *catalogListed) {
	r := &s.relists[kindSlot(m.kinds)]
	if m.n != r.n || s.cs == nil {
		return // the session is gone
	}
	r.inFlight = false
	if errors.Is(m.err, errListUnbounded) {
		s.listFailed(c, m.err)
		return
	}
	if m.err != nil {
		s.log.Warn("list "+kindNoun(m.kinds)+" after list_changed", zap.String("error", s.redactor.Redact(m.err.Error())))
		// The change this re-list was for is still unlisted: list it
		// again once the interval allows (with no interval, at the next
		// notification, so that a server whose lists keep failing is
		// not asked without pause).
		r.dirty = r.dirty || s.deps.RelistInterval > 0
	} else {
		c.Send(c.Parent(), &Relisted{Server: s.spec.Name, ID: s.id, Catalog: m.cat})
	}
	s.relistIfDue(c, m.kinds)
}

func (s *sessionActor) relistCooled(c actor.Context, m *relistCooled) {
	r := &s.relists[kindSlot(m.kinds)]
	if m.n != r.n || r.cooling == nil {
		return // stopped
	}
	r.cooling = nil
	s.relistIfDue(c, m.kinds)
}

// stopRelists stops the interval timers: no re-list starts after the
// session is gone.
func (s *sessionActor) stopRelists() {
	for i := range s.relists {
		r := &s.relists[i]
		if r.cooling != nil {
			r.cooling.Stop("session", "relist-interval")
			r.cooling = nil
		}
		r.dirty = false
	}
}

// kindSlot is the index of one kind in sessionActor.relists.
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
