package fleet

import (
	"slices"
)

// pushLiveRoots tells each running session whose configured roots or
// allowUnsolicitedRequests changed in this refresh (same session, other
// settings) about them.
func (r *fleetActor) pushLiveRoots(old *Snapshot, names []string) {
	now := r.view.Load()
	for _, name := range names {
		was, ok1 := old.Row(name)
		is, ok2 := now.Row(name)
		if !ok1 || !ok2 || is.Session == nil || was.Session != is.Session {
			continue
		}
		if !slices.Equal(was.Roots, is.Roots) {
			is.Session.UpdateRoots(is.Roots)
		}
		if was.AllowUnsolicitedRequests != is.AllowUnsolicitedRequests {
			is.Session.AllowUnsolicited(is.AllowUnsolicitedRequests)
		}
	}
}
