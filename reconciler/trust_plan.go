package reconciler

import "github.com/mcpvisor/mcpvisor/messages"

// planInvalid is the plan step for a live server whose entry can no longer
// run. An invalid entry keeps the last valid session (a typo never stops a
// server); an untrusted one stops it: a revoked approval, or a change
// nobody approved, must not leave the old session running on trust that
// was withdrawn.
func planInvalid(inv messages.InvalidServer) messages.PlanStep {
	if inv.EntryState() == messages.StateUntrusted {
		return step(inv.Name, messages.ActionStop, "untrusted")
	}
	return step(inv.Name, messages.ActionKeep, "invalid: keeping last valid session")
}
