package chaos_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// report logs the run's figures as tables: docs/reliability.md records
// those of the last long run.
func (r *run) report() {
	var b strings.Builder
	row := func(k string, v any) { fmt.Fprintf(&b, "  | %-58s | %8v |\n", k, v) }
	head := func(title string) {
		fmt.Fprintf(&b, "\n  %s\n  | %-58s | %8s |\n  | %s | %s |\n", title, "", "count", strings.Repeat("-", 58), strings.Repeat("-", 8))
	}
	table := func(title string, m map[string]int) {
		head(title)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			row(k, m[k])
		}
	}
	events := r.fol.events()
	elapsed := time.Duration(0)
	if len(events) > 0 {
		elapsed = events[len(events)-1].Time.Sub(r.started)
	}
	fmt.Fprintf(&b, "chaos summary: seed %d, faults for %s, run %s (to the last event), Close took %s\n",
		r.seed, r.duration, elapsed.Round(time.Millisecond), r.closeTook.Round(time.Millisecond))

	faults, writes, muts := map[string]int{}, map[string]int{}, map[string]int{}
	r.mu.Lock()
	for k, v := range r.faults {
		switch {
		case strings.HasPrefix(k, "mutation: "):
			muts[strings.TrimPrefix(k, "mutation: ")] += v
		case strings.HasPrefix(k, "valid write: "), strings.HasPrefix(k, "unusable write: "):
			writes[k] += v
		default:
			faults[k] += v
		}
	}
	r.mu.Unlock()
	table("faults injected", faults)
	table("config writes (each valid write carries its marker)", writes)
	table("model changes in config edits", muts)

	r.calls.mu.Lock()
	calls := maps.Clone(r.calls.outcomes)
	r.calls.mu.Unlock()
	table("tool calls (echo, 3 concurrent callers) by outcome", calls)

	types, states := map[string]int{}, map[string]int{}
	for _, env := range events {
		types[env.Event.EventType()]++
		if sc, ok := env.Event.(*messages.ServerStateChanged); ok {
			states[string(sc.From)+" → "+string(sc.To)]++
		}
	}
	table("events by type", types)
	table("state transitions", states)
	steps := map[string]int{}
	for k, v := range r.checker.steps {
		steps["plan step: "+k] = v
	}
	table("applied plans' steps", steps)

	c := r.checker
	head("invariants checked")
	row("events replayed (sequence without gaps)", len(events))
	row("config reads attributed to their writes", c.reads)
	for _, k := range slices.Sorted(maps.Keys(c.readsWithout)) {
		row("  of which saw no valid version of file "+k, c.readsWithout[k])
	}
	row("generations committed", c.commits)
	row("applied plans checked against the model", c.plans)
	row("dry-run plans", c.dryPlans)
	row("ready servers kept (same session) by a plan", c.keptReady)
	row("changes whose new session failed, old one kept", c.brokenChanges)
	row("state transitions checked", c.transitions)
	row("server processes seen (pids in events)", len(c.pids))
	nSecrets, scanned := r.secrets.summary()
	row("secrets planted", nSecrets)
	for _, s := range scanned {
		i := strings.LastIndexByte(s, ' ')
		row("  texts scanned: "+s[:i], s[i+1:])
	}
	row("secrets found in any of them", r.secrets.nLeaks)
	row("invariant violations (events)", c.nViolation)
	row("invariant violations (run, calls, logs)", len(r.violations)+len(r.calls.violations))
	row("leaks (processes, fds) after Close", len(r.leaks))

	r.mu.Lock()
	levels := maps.Clone(r.logLevels)
	warnings := maps.Clone(r.warnings)
	r.mu.Unlock()
	table("log lines by level and logger", levels)
	head("warning and error messages, and protoactor's (distinct)")
	for _, k := range slices.Sorted(maps.Keys(warnings)) {
		row(trim(k, 58), warnings[k])
	}
	head("final fleet")
	for _, s := range r.finalStatus.Servers {
		row(s.Name+": "+string(s.State), s.Restarts)
	}
	r.t.Log(b.String())
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
