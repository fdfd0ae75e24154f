package reconciler

import "github.com/mcpvisor/mcpvisor/messages"

// LegalTransition reports whether from → to is one of a server's
// documented state transitions (docs/events.md), including the ones a
// restart or a re-added server makes. Transitions to the entry states
// (invalid, untrusted, needs-input) are published for the config entry,
// whatever runs under its name, and are always legal. The chaos checker
// and the fleet's property test hold every published ServerStateChanged
// to this table.
func LegalTransition(from, to messages.State) bool {
	if to == messages.StateInvalid || to == messages.StateUntrusted || to == messages.StateNeedsInput {
		return true
	}
	return legalTransitions[[2]messages.State{from, to}]
}

var legalTransitions = func() map[[2]messages.State]bool {
	const (
		pending, starting, ready, failed = messages.StatePending, messages.StateStarting, messages.StateReady, messages.StateFailed
		stopping, stopped                = messages.StateStopping, messages.StateStopped
		needsAuth, idle                  = messages.StateNeedsAuth, messages.StateIdle
	)
	m := map[[2]messages.State]bool{}
	add := func(from []messages.State, to ...messages.State) {
		for _, f := range from {
			for _, t := range to {
				m[[2]messages.State{f, t}] = true
			}
		}
	}
	S := func(s ...messages.State) []messages.State { return s }
	add(S(stopped, failed, stopping), pending, starting) // start, retry, re-add
	add(S(pending), starting, pending)                   // connect slot free
	add(S(starting), ready, failed, starting, pending)   // connected, failed, restarted while connecting
	add(S(ready), ready, failed)                         // swap or warning, death
	add(S(failed), failed, ready)                        // a broken change reported; a change completing after its old session died
	add(S(pending, starting, ready, failed), stopping)   // stop
	add(S(pending, failed, stopped), stopped)            // stop without a session
	add(S(stopping), stopped)
	add(S(starting, ready), needsAuth)   // the server asks for OAuth and no usable token is there
	add(S(needsAuth), needsAuth)         // a report within it (its entry turned invalid: the last valid spec waits)
	add(S(needsAuth), ready)             // a change completing after its old session was refused
	add(S(needsAuth), pending, starting) // a resync (after a login) or a config change
	add(S(needsAuth), stopping, stopped) // removed while waiting for a login
	// Lazy servers: idle while not running (new, changed, resynced after a
	// failure, or stopped for want of use); started when used or to list
	// their catalog; removed while idle.
	add(S(stopped, stopping, idle, failed, pending, starting, needsAuth), idle)
	add(S(idle), pending, starting, stopped)
	return m
}()
