package actors

import (
	"slices"

	"github.com/asynkron/protoactor-go/actor"
)

// RefreshRoots makes every server that takes its roots from Options.Roots
// read them again; changed roots are announced to the servers.
func (s *Supervisor) RefreshRoots() {
	for _, row := range s.view.load().rows {
		if row.handle != nil {
			row.handle.RefreshRoots()
		}
	}
}

// pushLiveRoots tells each running session whose configured roots changed
// in this refresh (same session, other roots) about them.
func (r *reconcilerActor) pushLiveRoots(c actor.Context, old *fleetSnapshot, names []string) {
	now := r.view.load()
	for _, name := range names {
		was, ok1 := old.row(name)
		is, ok2 := now.row(name)
		if ok1 && ok2 && is.handle != nil && was.handle == is.handle && !slices.Equal(was.roots, is.roots) {
			is.handle.UpdateRoots(is.roots)
		}
	}
}
