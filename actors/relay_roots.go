package actors

import (
	"slices"

	"github.com/asynkron/protoactor-go/actor"
)

// RefreshRoots makes every server that takes its roots from Options.Roots
// read them again; changed roots are announced to the servers.
func (s *Supervisor) RefreshRoots() {
	for _, row := range s.view.Load().Rows() {
		if row.Session != nil {
			row.Session.RefreshRoots()
		}
	}
}

// pushLiveRoots tells each running session whose configured roots changed
// in this refresh (same session, other roots) about them.
func (r *reconcilerActor) pushLiveRoots(c actor.Context, old *fleetSnapshot, names []string) {
	now := r.view.Load()
	for _, name := range names {
		was, ok1 := old.Row(name)
		is, ok2 := now.Row(name)
		if ok1 && ok2 && is.Session != nil && was.Session == is.Session && !slices.Equal(was.Roots, is.Roots) {
			is.Session.UpdateRoots(is.Roots)
		}
	}
}
