package reconciler

import (
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// Desired is the config side of a plan: what should run.
type Desired struct {
	// Servers holds every valid entry, disabled ones included.
	Servers []messages.ServerSpec
	// Invalid holds entries the config declares but that cannot run.
	Invalid []messages.InvalidServer
	// Resync retries every failed server now instead of waiting for its
	// backoff or, after a crash loop, for a config change.
	Resync bool
}

// Observed is the live side of a plan: one server the fleet actor has a
// session (or a failed session) for.
type Observed struct {
	// Spec is the spec the server's current session runs.
	Spec  messages.ServerSpec
	State messages.State
}

// Plan diffs desired against observed and returns one step per server
// name that appears on either side, sorted by name. It is pure: the
// fleet actor carries the steps out.
//
// The rules (docs/architecture.md, "The fleet"):
//
//	desired, nothing live            start    "new"
//	live, not desired                stop     "removed"
//	live, desired but disabled       stop     "disabled"
//	live, entry now invalid          keep     "invalid: keeping last valid session"
//	live, entry now untrusted        stop     "untrusted"
//	fingerprint differs              restart  "changed: <fields>"
//	same fingerprint, failed         retry    "failed: retry" (on resync), else keep "failed: waiting"
//	same fingerprint, otherwise      keep     "unchanged"
func Plan(desired Desired, observed []Observed) []messages.PlanStep {
	// live maps a name to its index in observed; seen marks the names the
	// config declares. Indices, not copies: specs are large.
	live := make(map[string]int, len(observed))
	for i := range observed {
		if observed[i].State != messages.StateStopped {
			live[observed[i].Spec.Name] = i
		}
	}
	steps := make([]messages.PlanStep, 0, len(desired.Servers)+len(live))
	seen := make(map[string]bool, len(desired.Servers)+len(desired.Invalid))
	for i := range desired.Servers {
		d := &desired.Servers[i]
		seen[d.Name] = true
		var o *Observed
		if j, ok := live[d.Name]; ok {
			o = &observed[j]
		}
		steps = append(steps, planOne(d, o, desired.Resync))
	}
	for _, inv := range desired.Invalid {
		if seen[inv.Name] {
			continue
		}
		seen[inv.Name] = true
		if _, ok := live[inv.Name]; ok {
			steps = append(steps, planInvalid(inv))
		}
	}
	for name := range live {
		if !seen[name] {
			steps = append(steps, step(name, messages.ActionStop, "removed"))
		}
	}
	slices.SortFunc(steps, func(a, b messages.PlanStep) int { return strings.Compare(a.Server, b.Server) })
	return steps
}

// planOne decides for one declared server; o is nil when nothing is live.
func planOne(d *messages.ServerSpec, o *Observed, resync bool) messages.PlanStep {
	switch {
	case d.Disabled && o != nil:
		return step(d.Name, messages.ActionStop, "disabled")
	case d.Disabled:
		return step(d.Name, messages.ActionKeep, "disabled")
	case o == nil:
		return step(d.Name, messages.ActionStart, "new")
	case o.Spec.Fingerprint != d.Fingerprint:
		return step(d.Name, messages.ActionRestart, "changed: "+strings.Join(config.ChangedFields(o.Spec, *d), ", "))
	case o.State == messages.StateFailed && resync:
		return step(d.Name, messages.ActionRetry, "failed: retry")
	case o.State == messages.StateFailed:
		return step(d.Name, messages.ActionKeep, "failed: waiting for retry")
	case o.State == messages.StateNeedsAuth && resync:
		return step(d.Name, messages.ActionRetry, "needs-auth: retry")
	case o.State == messages.StateNeedsAuth:
		return step(d.Name, messages.ActionKeep, "needs-auth: waiting for `mcpvisor auth login`")
	default:
		return step(d.Name, messages.ActionKeep, "unchanged")
	}
}

func step(name string, a messages.Action, reason string) messages.PlanStep {
	return messages.PlanStep{Server: name, Action: a, Reason: reason}
}

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
