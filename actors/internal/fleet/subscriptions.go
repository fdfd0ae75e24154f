package fleet

import (
	"context"
	"fmt"
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/actors/internal/view"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// The fleet actor's half of the catalog: it steps the fleet with re-lists,
// and it keeps the resource subscriptions. A subscription is counted per
// URI; the session of the server that owns the URI holds it upstream, and
// whenever where URIs route changes (the owner gets a new session after a
// restart, a retry or a changed config; another server takes the URI), it
// is held again by the session that owns it now.

// Messages private to the fleet actor, for subscriptions.
type (
	// subscribeResource counts one subscription to uri (an error answer
	// included: Tree.Subscribe gives it back with unsubscribeResource)
	// and makes sure the owning session holds it; reply (buffered) gets
	// the outcome.
	subscribeResource struct {
		uri   string
		reply chan<- error
	}
	unsubscribeResource struct{ uri string }
)

// resourceSub is one URI's subscriptions: how many, and which session
// holds it upstream.
type resourceSub struct {
	count   int
	session *session.Handle
}

func (r *fleetActor) sessionCatalog(c actor.Context, m *session.Relisted) {
	cat := m.Catalog
	if cat.Kinds&session.KindTools != 0 {
		r.step(c, reconciler.SessionTools{Now: r.now(), Server: m.Server, Session: m.ID, Tools: cat.Tools})
	}
	if cat.Kinds&session.KindPrompts != 0 {
		r.step(c, reconciler.SessionPrompts{Server: m.Server, Session: m.ID, Prompts: cat.Prompts, Skipped: cat.Skipped})
	}
	if cat.Kinds&session.KindResources != 0 {
		r.step(c, reconciler.SessionResources{Server: m.Server, Session: m.ID, Resources: cat.Resources, Templates: cat.Templates, Skipped: cat.Skipped})
	}
}

// rerouteSubscriptions has each subscribed URI held by the session that
// owns it now, once the view shows a change of where URIs route (a row
// among names that lists resources or templates, or listed some: a new
// session of its server, a failure, a stop, a re-list): a URI whose owner
// has a new session (or is another server now) is subscribed there and
// dropped where it was. A URI nobody owns keeps its count and waits for
// an owner.
func (r *fleetActor) rerouteSubscriptions(old *Snapshot, names []string) {
	if len(r.subs) == 0 {
		return
	}
	snap := r.view.Load()
	if !slices.ContainsFunc(names, func(name string) bool { return routesURIs(old, name) || routesURIs(snap, name) }) {
		return
	}
	for uri, sub := range r.subs {
		row, ok := snap.ResourceOwner(uri)
		if !ok || row.Session == nil || row.Session == sub.session {
			continue
		}
		if sub.session != nil {
			sub.session.Unsubscribe(uri)
		}
		sub.session = row.Session
		row.Session.Subscribe(uri, nil)
	}
}

func (r *fleetActor) subscribeResource(m *subscribeResource) {
	sub := r.subs[m.uri]
	if sub == nil {
		sub = &resourceSub{}
		r.subs[m.uri] = sub
	}
	sub.count++
	row, ok := r.view.Load().ResourceOwner(m.uri)
	if !ok || row.Session == nil {
		m.reply <- fmt.Errorf("%w: %q", view.ErrUnknownResource, m.uri)
		return
	}
	if sub.session != nil && sub.session != row.Session {
		sub.session.Unsubscribe(m.uri)
	}
	sub.session = row.Session
	row.Session.Subscribe(m.uri, m.reply)
}

func (r *fleetActor) unsubscribeResource(m *unsubscribeResource) {
	sub := r.subs[m.uri]
	if sub == nil {
		return
	}
	if sub.count--; sub.count > 0 {
		return
	}
	delete(r.subs, m.uri)
	if sub.session != nil {
		sub.session.Unsubscribe(m.uri)
	}
}

// routesURIs reports whether the server's row in s lists resources or
// resource templates.
func routesURIs(s *Snapshot, server string) bool {
	row, _ := s.Row(server)
	return row.ListsURIs()
}

// resourceUpdated publishes an update from a server's current session of
// a URI someone subscribed to.
func (r *fleetActor) resourceUpdated(m *session.ResourceUpdated) {
	row, ok := r.view.Load().Row(m.Server)
	if !ok || row.Status.Session != m.ID || r.subs[m.URI] == nil {
		return
	}
	r.outbox = append(r.outbox, &messages.ResourceUpdated{Server: m.Server, URI: m.URI})
}

// Subscribe counts one subscription to uri and has the owning server's
// session hold it upstream; it returns once that is acknowledged, or with
// an error (and no subscription counted). The wait is bounded by ctx and
// by CallBound.
func (t *Tree) Subscribe(ctx context.Context, uri string) error {
	reply := make(chan error, 1)
	t.sys.Root.Send(t.pids.Fleet, &subscribeResource{uri: uri, reply: reply})
	bound := t.deps.Clock.NewTimer(t.deps.CallBound, "supervisor", "call-bound")
	defer bound.Stop("supervisor", "call-bound")
	var err error
	select {
	case err = <-reply:
	case <-ctx.Done():
		err = fmt.Errorf("%w: %w", session.ErrCanceled, ctx.Err())
	case <-t.ending.done:
		return t.Err()
	case <-bound.C:
		err = fmt.Errorf("%w: no answer to the subscription", session.ErrNotReady)
	}
	if err != nil && t.Err() == nil {
		t.sys.Root.Send(t.pids.Fleet, &unsubscribeResource{uri: uri}) // gives the count back
	}
	return err
}

// Unsubscribe drops one subscription to uri; the upstream one ends with
// the last. Unsubscribing a URI not subscribed to is a no-op.
func (t *Tree) Unsubscribe(uri string) {
	if t.Err() == nil {
		t.sys.Root.Send(t.pids.Fleet, &unsubscribeResource{uri: uri})
	}
}
