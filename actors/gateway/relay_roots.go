//lint:file-ignore SA1019 roots are deprecated from protocol 2026-07-28 on (SEP-2577) but are what this file relays.

package gateway

import (
	"context"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Roots through the gateway. The fleet's servers take their roots from
// the Supervisor's Options.Roots (Relay.Install sets it), which answers
// with the roots of the gateway's client: the gateway asks a client that
// advertised roots for them when it has initialized and whenever it says
// they changed (notifications/roots/list_changed), then has the fleet read
// them again (Supervisor.RefreshRoots), which announces the change to the
// servers. The servers' roots are one set, not one per call, so they are
// the roots of the only client that has any: with two or more such
// clients, no roots, since no one client's are everyone's. A client on
// protocol 2026-07-28 cannot be asked outside a call, so its roots are not
// known; nor are an HTTP client's (a session with an id): a request the
// go-sdk sends to a client holds that session's Close until the client
// answers, and an HTTP client that has not opened its event stream never
// will, so a shutdown would hang. A server whose config lists roots keeps
// those.

// clientRoots keeps the roots of each client that gave them.
type clientRoots struct {
	mu sync.Mutex
	by map[*mcp.ServerSession][]*mcp.Root
	// asking holds the clients being asked; false: asked again once the
	// answer is in.
	asking map[*mcp.ServerSession]bool
}

// rootsRefresher is the part of a Source that re-reads Options.Roots;
// *actors.Supervisor has it.
type rootsRefresher interface{ RefreshRoots() }

// clientRootsChanged has a client that advertised roots asked for them,
// then the fleet re-read them. It runs on the go-sdk's handler goroutine
// for that client, which must not wait for the client's answer (a session
// closing waits for its handlers, and a client that never answers would
// hold it forever), so the asking runs on a goroutine of its own, one per
// client at a time (a change meanwhile asks again when it is done), that
// ends with the session at the latest.
func (g *Gateway) clientRootsChanged(ss *mcp.ServerSession) {
	init := ss.InitializeParams()
	if ss.ID() != "" || init == nil || init.Capabilities == nil || init.ProtocolVersion >= statelessFrom ||
		(init.Capabilities.RootsV2 == nil && !init.Capabilities.Roots.ListChanged) {
		return
	}
	g.roots.mu.Lock()
	defer g.roots.mu.Unlock()
	if g.roots.asking == nil {
		g.roots.asking = map[*mcp.ServerSession]bool{}
	}
	if running, ok := g.roots.asking[ss]; ok {
		if running {
			g.roots.asking[ss] = false // ask again when done
		}
		return
	}
	g.roots.asking[ss] = true
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_ = ss.Wait()
		cancel()
	}()
	go func() {
		defer cancel()
		for {
			res, err := ss.ListRoots(ctx, nil)
			if err != nil {
				g.log.Debug("client's roots not read", zap.Error(err))
			}
			g.roots.mu.Lock()
			if err == nil {
				if g.roots.by == nil {
					g.roots.by = map[*mcp.ServerSession][]*mcp.Root{}
				}
				g.roots.by[ss] = slices.Clone(res.Roots)
			}
			again := !g.roots.asking[ss] && ctx.Err() == nil
			if again {
				g.roots.asking[ss] = true
			} else {
				delete(g.roots.asking, ss)
			}
			g.roots.mu.Unlock()
			if err == nil {
				if rr, ok := g.src.(rootsRefresher); ok {
					rr.RefreshRoots()
				}
			}
			if !again {
				return
			}
		}
	}()
}

// current is the roots the fleet's servers get: those of the only live
// client that gave any (clients that are gone are forgotten).
func (c *clientRoots) current(g *Gateway) []*mcp.Root {
	live := map[*mcp.ServerSession]bool{}
	for ss := range g.server.Sessions() {
		live[ss] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var only []*mcp.Root
	n := 0
	for ss, roots := range c.by {
		if !live[ss] {
			delete(c.by, ss)
			continue
		}
		n++
		only = roots
	}
	if n != 1 {
		return nil
	}
	return slices.Clone(only)
}

// roots answers Options.Roots.
func (r *Relay) roots() []*mcp.Root {
	g := r.gw.Load()
	if g == nil {
		return nil
	}
	return g.roots.current(g)
}
