package messages

// CatalogsKnown reports whether every server's catalog is known: a
// desired state has been read and its plan applied, and every server is
// ready, shows its cached catalog (Cached) while it connects, or has
// left the connect wave otherwise (see Settled). A gateway can answer its
// first lists at that moment, before the servers are up.
func (s Status) CatalogsKnown() bool {
	if s.ObservedGeneration == 0 || s.ObservedGeneration < s.Generation {
		return false
	}
	for _, srv := range s.Servers {
		switch srv.State {
		case StatePending, StateStarting:
			if !srv.Cached {
				return false
			}
		case StateStopping:
			return false
		}
	}
	return true
}
