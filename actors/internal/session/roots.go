//lint:file-ignore SA1019 roots are deprecated from protocol 2026-07-28 on (SEP-2577) but are what this file relays.

package session

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
)

// Roots: a server's roots are the ones its config lists (live: a change is
// announced with notifications/roots/list_changed, no restart), else the
// embedder's Options.Roots. The go-sdk client answers roots/list itself
// from its set (also for input requests on 2026-07-28), so the session
// keeps that set equal to what it should be.

// Messages private to roots.
type (
	// updateRoots carries a live change of the server's configured roots
	// from the fleet actor to its running session (Handle.UpdateRoots).
	updateRoots struct{ roots []string }
	// refreshRoots asks a session to read Options.Roots again.
	refreshRoots struct{}
)

// rootsAdvertised says whether a session for these settings advertises
// roots: its config lists some, or the embedder answers for it and can
// honour them now (Options.Honourable).
func (s *sessionActor) rootsAdvertised() bool {
	return len(s.spec.Roots) > 0 || (s.deps.Roots != nil && relay.HasRoots(s.deps.Relay.Handlers.HonourableNow()))
}

// rootsNow is the set the server should see now.
func (s *sessionActor) rootsNow() []*mcp.Root {
	if len(s.spec.Roots) > 0 {
		out := make([]*mcp.Root, len(s.spec.Roots))
		for i, uri := range s.spec.Roots {
			out[i] = &mcp.Root{URI: uri}
		}
		return out
	}
	if s.deps.Roots != nil {
		return s.deps.Roots()
	}
	return nil
}

func (s *sessionActor) updateRoots(m *updateRoots) {
	s.spec.Roots = m.roots
	s.pushRoots()
}

// pushRoots brings the client's roots in line with rootsNow, on a
// goroutine (the go-sdk notifies the server from AddRoots/RemoveRoots).
// A session that did not advertise roots at connect cannot start now:
// its server learns of them at its next connect.
func (s *sessionActor) pushRoots() {
	if s.client == nil {
		return
	}
	if !s.advertisedRoots {
		s.log.Warn("roots apply at the server's next connect: its session did not advertise roots")
		return
	}
	s.rootsSync.Want(s.rootsNow())
	sync, client := s.rootsSync, s.client
	s.deps.Work.Add(1)
	go func() {
		defer s.deps.Work.Done()
		sync.Apply(client)
	}()
}
