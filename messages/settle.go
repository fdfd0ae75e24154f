package messages

// Settled reports whether the fleet is at rest: a desired state has been
// read and its plan applied (ObservedGeneration caught up with
// Generation), and every server has left the states a connect wave passes
// through (pending, starting, stopping): each is ready, failed, invalid,
// disabled, untrusted, idle or stopped. A gateway holds its first lists until
// the first such moment, so that a client listing right after it connects
// sees every server that came up.
func (s Status) Settled() bool {
	if s.ObservedGeneration == 0 || s.ObservedGeneration < s.Generation {
		return false
	}
	for _, srv := range s.Servers {
		switch srv.State {
		case StatePending, StateStarting, StateStopping:
			return false
		}
	}
	return true
}
