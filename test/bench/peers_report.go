package main

import (
	"fmt"
	"strings"
	"time"
)

// peerReport prints the comparison: the timed figures, where an add
// edit's time goes and the behaviour seen, mcpvisor against mcp-hub in
// each, then how it was timed and the verdict on each target. It also
// records the raw samples and, with -plot, plots the edit latencies.
func (h *harness) peerReport(runs map[string][]peerRun) string {
	ours, theirs := runs["mcpvisor"], runs["mcp-hub"]
	our, their := pooledPeerTimes(ours), pooledPeerTimes(theirs)
	h.samples["peers"] = map[string]any{
		"rounds": h.opt.peerRounds, "edits_per_round": h.opt.peerEdits,
		"mcpvisor": map[string]any{"cold2_ms": our.cold2.msList(), "cold10_ms": our.cold10.msList(), "edit_ms": our.edits.msList(), "env_edit_ms": our.envEdit.msList()},
		"mcp-hub":  map[string]any{"cold2_ms": their.cold2.msList(), "cold10_ms": their.cold10.msList(), "edit_ms": their.edits.msList(), "env_edit_ms": their.envEdit.msList()},
	}
	var plotNote string
	if h.opt.plot != "" {
		if err := h.plotEdits(h.opt.plot, our.edits, their.edits, our.applying, their.applying); err != nil {
			plotNote = fmt.Sprintf("\nplot: %v\n", err)
		} else {
			plotNote = fmt.Sprintf("\nPlot of the edit latencies: %s\n", h.opt.plot)
		}
	}
	body := peerTimings(our, their) + "\n" + peerBreakdown(ours, theirs, our.applying, their.applying) + "\n" + h.peerBehaviour(ours, theirs) + h.peerNotes(ours, theirs, our.edits, their.edits)
	return body + plotNote + fmt.Sprintf("\nCommand: `make bench-peers` (= `cd test/bench && go run . -only peers -peer-rounds %d -peer-edits %d -plot ../../docs/edit-to-ready.png`)\n", h.opt.peerRounds, h.opt.peerEdits)
}

// peerTimes are one manager's timed figures, pooled over its rounds: what
// the timings table, the raw samples and the plot all draw on.
type peerTimes struct {
	cold2, cold10, edits, envEdit, shutdown, applying sample
}

// pooledPeerTimes pools the timed figures of the rounds rs.
func pooledPeerTimes(rs []peerRun) peerTimes {
	return peerTimes{
		cold2:    pooledDurations(rs, func(r peerRun) time.Duration { return r.cold2 }),
		cold10:   pooledDurations(rs, func(r peerRun) time.Duration { return r.cold10 }),
		edits:    pooledSamples(rs, func(r peerRun) sample { return r.edits }),
		envEdit:  pooledDurations(rs, func(r peerRun) time.Duration { return r.envEdit }),
		shutdown: pooledDurations(rs, func(r peerRun) time.Duration { return r.shutdown }),
		applying: pooledSamples(rs, func(r peerRun) sample { return r.applying }),
	}
}

// peerTimings is the table of the timed figures, with the ratio of ours
// to theirs for each.
func peerTimings(our, their peerTimes) string {
	var t table
	t.head = []string{"scenario (Node reference servers over stdio)", "mcpvisor min / median / max ms", "mcp-hub min / median / max ms", "ours / theirs: min, median, max"}
	addRatioRow(&t, fmt.Sprintf("cold start, 2 servers: process start → all connected (%d runs)", len(our.cold2)), our.cold2, their.cold2)
	addRatioRow(&t, fmt.Sprintf("cold start, 10 servers (%d runs)", len(our.cold10)), our.cold10, their.cold10)
	addRatioRow(&t, fmt.Sprintf("edit adding a server → it is connected (%d edits)", len(our.edits)), our.edits, their.edits)
	addRatioRow(&t, fmt.Sprintf("edit of one server's env → it is connected again (%d edits)", len(our.envEdit)), our.envEdit, their.envEdit)
	addRatioRow(&t, "SIGTERM → manager exited (10 servers)", our.shutdown, their.shutdown)
	return t.String()
}

// addRatioRow adds to t a row of ours (a) and theirs (b), each as min /
// median / max, and the ratios of the three, the median's in bold.
func addRatioRow(t *table, name string, a, b sample) {
	t.add(name, a.mmm(), b.mmm(), fmt.Sprintf("%.2f, **%.2f**, %.2f",
		float64(a.min())/float64(b.min()), float64(a.median())/float64(b.median()), float64(a.max())/float64(b.max())))
}

// peerBreakdown is the table of where an add edit's time goes: the added
// server's own start-up, the write until the manager begins applying the
// edit, and, for mcpvisor, the steps its own events show.
func peerBreakdown(ours, theirs []peerRun, oursApplying, theirsApplying sample) string {
	var b table
	b.head = []string{"where an add edit's time goes", "mcpvisor min / median / max ms", "mcp-hub min / median / max ms"}
	b.add("the added server's own start-up (raw go-sdk spawn + Connect + ListTools, measured before each edit)",
		pooledSamples(ours, func(r peerRun) sample { return r.startups }).mmm(), pooledSamples(theirs, func(r peerRun) sample { return r.startups }).mmm())
	b.add("write → the manager begins applying the edit (mcpvisor: added server starting; mcp-hub: servers_updating)", oursApplying.mmm(), theirsApplying.mmm())
	b.add("mcpvisor: write → config.loaded (watch, 100 ms debounce, read)", pooledSamples(ours, func(r peerRun) sample { return r.editLoaded }).mmm(), "–")
	b.add("mcpvisor: added server starting → ready (its spawn + connect + list)", pooledSamples(ours, func(r peerRun) sample { return r.editStart }).mmm(), "–")
	return b.String()
}

// peerBehaviour is the table of what each manager did rather than how
// fast: restarts of servers an edit did not touch, recovery after kill -9,
// and server processes left behind by a shutdown.
func (h *harness) peerBehaviour(ours, theirs []peerRun) string {
	var u table
	u.head = []string{"behaviour", "mcpvisor", "mcp-hub"}
	u.add("other servers restarted by an env edit of one (9 others per edit)", perRoundCounts(ours, func(r peerRun) int { return r.restartedOthers }), perRoundCounts(theirs, func(r peerRun) int { return r.restartedOthers }))
	u.add("untouched servers kept their processes across the add edits", fmt.Sprintf("%d of %d rounds", roundsWhere(ours, func(r peerRun) bool { return r.keptOnAdd }), len(ours)), fmt.Sprintf("%d of %d rounds", roundsWhere(theirs, func(r peerRun) bool { return r.keptOnAdd }), len(theirs)))
	u.add("kill -9 of a server (everything-1)", h.killOutcome(ours), h.killOutcome(theirs))
	u.add("server processes still running when the manager had exited after SIGTERM", perRoundCounts(ours, func(r peerRun) int { return r.leftAfterShutdown }), perRoundCounts(theirs, func(r peerRun) int { return r.leftAfterShutdown }))
	u.add("… and one second later", perRoundCounts(ours, func(r peerRun) int { return r.leftAfterSecond }), perRoundCounts(theirs, func(r peerRun) int { return r.leftAfterSecond }))
	return u.String()
}

// killOutcome says, for one manager's rounds rs, how many recovered from
// the kill -9 and how fast, and of those that did not within
// -peer-kill-wait, how many its API still called connected.
func (h *harness) killOutcome(rs []peerRun) string {
	var rec sample
	still := 0
	for _, r := range rs {
		if r.killRecovered {
			rec = append(rec, r.killRecovery)
		}
		if r.killStillUp {
			still++
		}
	}
	s := fmt.Sprintf("recovered %d of %d", len(rec), len(rs))
	if len(rec) > 0 {
		s += ", in " + rec.mmm() + " ms (min / median / max; includes the 1 s ± 20% backoff)"
	}
	if len(rec) < len(rs) {
		s += fmt.Sprintf("; not within %s in %d; API still said connected in %d", h.opt.peerKillWait, len(rs)-len(rec), still)
	}
	return s
}

// peerNotes is the text under the tables: how each figure was timed, the
// environment both managers ran in, and the verdict on each target.
func (h *harness) peerNotes(ours, theirs []peerRun, oursEdits, theirsEdits sample) string {
	envNote := "Both managers (and the raw start-up probe) ran without " + strings.Join(nodeStartVars, " and ") + " in their environment (see nodeStartVars)."
	if h.opt.peerInheritEnv {
		envNote = "Both managers ran with the harness's whole environment (-peer-inherit-env), " + strings.Join(nodeStartVars, " and ") + " included where set."
	}
	editRatio := float64(oursEdits.median()) / float64(theirsEdits.median())
	others := 0
	for _, r := range ours {
		others += r.restartedOthers
	}
	recovered := roundsWhere(ours, func(r peerRun) bool { return r.killRecovered })
	theirRecovered := roundsWhere(theirs, func(r peerRun) bool { return r.killRecovered })
	return fmt.Sprintf(`
Timed by the event each publishes, stamped when the harness read it from its SSE stream: mcpvisor's server.state ready on /api/v1/events (cold start: the last server's); mcp-hub's subscription_event servers_updated listing the server as added or modified on /api/events (cold start: hub_state ready); each checked afterwards against the API (GET /api/v1/status ready, GET /api/servers connected). Recovery after kill -9: mcpvisor's ready event; mcp-hub has no such event, so its API and the process table were polled every 50 ms. Both with default settings (mcpvisor: 100 ms debounce; mcp-hub --watch: chokidar awaitWriteFinish, 200 ms stability, 100 ms polling). %s

Targets:
- edit-to-connected at most 0.8x mcp-hub's: %s (median ratio %.3f).
- zero restarts of untouched servers on an env edit: %s (%d).
- every kill -9 that mcp-hub does not recover from, covered: %s (mcpvisor recovered %d of %d; mcp-hub %d of %d).
`, envNote, verdict(editRatio <= 0.8), editRatio, verdict(others == 0), others,
		verdict(recovered == len(ours)), recovered, len(ours), theirRecovered, len(theirs))
}

// pooledDurations is f of every round in rs, in order.
func pooledDurations(rs []peerRun, f func(peerRun) time.Duration) sample {
	var s sample
	for _, r := range rs {
		s = append(s, f(r))
	}
	return s
}

// pooledSamples is every value of f of every round in rs, in order.
func pooledSamples(rs []peerRun, f func(peerRun) sample) sample {
	var s sample
	for _, r := range rs {
		s = append(s, f(r)...)
	}
	return s
}

// perRoundCounts is the total of f over the rounds rs and, in brackets,
// each round's.
func perRoundCounts(rs []peerRun, f func(peerRun) int) string {
	var xs []int
	total := 0
	for _, r := range rs {
		xs = append(xs, f(r))
		total += f(r)
	}
	return fmt.Sprintf("%d in all (%v)", total, xs)
}

// roundsWhere is how many of the rounds rs f holds for.
func roundsWhere(rs []peerRun, f func(peerRun) bool) int {
	n := 0
	for _, r := range rs {
		if f(r) {
			n++
		}
	}
	return n
}
