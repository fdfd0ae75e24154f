package gateway

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// subscriptions counts the gateway's clients subscribed to each URI, so
// that the Source (and through it the owning server) is subscribed once
// per URI, on the first client, and unsubscribed after the last. The
// go-sdk's server keeps its own per-session table and fans each
// notifications/resources/updated out to the sessions in it; this table
// only decides when the upstream subscription starts and ends.
//
// A legacy session that ends without unsubscribing leaves no trace in the
// go-sdk's table (it drops ended sessions) but would here: so each
// subscribe, unsubscribe and update first drops sessions the server no
// longer has, and a URI whose last subscriber is gone is unsubscribed
// upstream then (at the latest on its next update).
type subscriptions struct {
	// mu is held across the Source's SubscribeResource, so that two
	// clients subscribing to one URI at once subscribe upstream once.
	// Subscriptions are rare; a slow upstream delays other subscribes and
	// unsubscribes by at most its call timeout, never Run.
	mu    sync.Mutex
	byURI map[string]map[*mcp.ServerSession]bool
}

func (s *subscriptions) init() { s.byURI = map[string]map[*mcp.ServerSession]bool{} }

// live is the set of the server's sessions now.
func (g *Gateway) live() map[*mcp.ServerSession]bool {
	out := map[*mcp.ServerSession]bool{}
	for ss := range g.server.Sessions() {
		out[ss] = true
	}
	return out
}

// prune drops ended sessions from uri's subscribers and, when none is
// left, the upstream subscription. Call with s.mu held.
func (g *Gateway) prune(uri string, live map[*mcp.ServerSession]bool) {
	subs, ok := g.subs.byURI[uri]
	if !ok {
		return
	}
	for ss := range subs {
		if !live[ss] {
			delete(subs, ss)
		}
	}
	if len(subs) == 0 {
		delete(g.subs.byURI, uri)
		g.src.UnsubscribeResource(uri)
		g.log.Debug("resource unsubscribed upstream", zap.String("uri", uri))
	}
}

// subscribe is the server's SubscribeHandler: resources/subscribe on a
// legacy session, or a URI in a 2026-07-28 subscriptions/listen.
func (g *Gateway) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	g.subs.mu.Lock()
	defer g.subs.mu.Unlock()
	g.prune(uri, g.live())
	subs, ok := g.subs.byURI[uri]
	if !ok {
		if err := g.src.SubscribeResource(ctx, uri); err != nil {
			return mapRequestError("subscribe to resource "+uri, g.resourceOwner(uri), err)
		}
		g.log.Debug("resource subscribed upstream", zap.String("uri", uri))
		subs = map[*mcp.ServerSession]bool{}
		g.subs.byURI[uri] = subs
	}
	subs[req.Session] = true
	return nil
}

// unsubscribe is the server's UnsubscribeHandler.
func (g *Gateway) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	g.subs.mu.Lock()
	defer g.subs.mu.Unlock()
	if subs, ok := g.subs.byURI[uri]; ok {
		delete(subs, req.Session)
		g.prune(uri, g.live())
	}
	return nil
}

// resourceUpdated relays one upstream notifications/resources/updated to
// every client subscribed to uri (the go-sdk sends it to the sessions in
// its own table, and to no one if none is subscribed). It also prunes
// uri's ended subscribers, unless a subscribe holds the table (it may wait
// on a slow upstream, and Run must not): the next update prunes then.
func (g *Gateway) resourceUpdated(ctx context.Context, uri string) {
	if g.subs.mu.TryLock() {
		g.prune(uri, g.live())
		g.subs.mu.Unlock()
	}
	if err := g.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		g.log.Debug("resource update not relayed", zap.String("uri", uri), zap.Error(err))
	}
}
