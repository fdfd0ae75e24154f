package chaos_test

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// checker replays the whole event log, in sequence order, against the
// model and reports every event that breaks an invariant:
//
//   - the log is complete: sequence numbers 1, 2, 3, … without a gap;
//   - every config read is attributed to the writes it saw (markerField),
//     at most one per file, and found as many valid servers as the model
//     predicts for those writes;
//   - each committed generation is one desired state, generations grow by
//     one;
//   - every applied plan agrees with the model: it starts only declared,
//     enabled servers that do not run, restarts exactly the servers whose
//     session-affecting spec differs from what runs (or is being applied),
//     keeps exactly the ones whose spec is the same, retries only failed
//     ones, stops only removed or disabled ones, and has a step for every
//     declared enabled server;
//   - every state change starts from the state the previous one ended in,
//     and is one of the documented transitions;
//   - no server that is ready or connecting gets a new session unless a
//     plan step for it (restart, start, retry, stop) came first: a ready
//     server is replaced only when it failed or a plan said so.
type checker struct {
	writes map[int]*writeRecord // by marker id

	seq       uint64
	committed uint64             // newest committed generation
	dsByGen   map[uint64]desired // committed desired state of each generation
	servers   map[string]*serverTrack

	pids       map[int]bool // of every session that was ready (stdio)
	violations []string
	nViolation int

	// Figures for the summary.
	reads, commits, plans, dryPlans int
	steps                           map[string]int // by action
	keptReady                       int            // keep "unchanged" steps for ready servers
	transitions                     int
	brokenChanges                   int            // changed servers whose new session failed, old one kept
	readsWithout                    map[string]int // reads that saw no valid version of a file, by file
}

// writeRecord is one write of a config file.
type writeRecord struct {
	id      int // marker id of a valid write; 0 for an unusable one
	file    int
	mode    string
	valid   bool
	bad     string           // for an unusable write: what is wrong with it
	entries map[string]entry // what a valid write declares
}

// serverTrack mirrors what the fleet actor believes about one server,
// derived from events only.
type serverTrack struct {
	state messages.State
	// spec is the session key of the spec the fleet actor applies to the
	// server (its record's spec); next the key of a make-before-break
	// session in flight ("" if none). A plan compares desired against
	// next if set, else spec.
	spec, next string
	cur        uint64 // the current session (0 if none)
	// stepped says that a plan step other than keep named the server
	// since its last state change: that allows a new session.
	stepped bool
}

func newChecker(writes map[int]*writeRecord) *checker {
	return &checker{
		writes: writes, dsByGen: map[uint64]desired{}, servers: map[string]*serverTrack{},
		pids: map[int]bool{}, steps: map[string]int{}, readsWithout: map[string]int{},
	}
}

func (c *checker) violate(seq uint64, format string, args ...any) {
	c.nViolation++
	if len(c.violations) < 30 {
		c.violations = append(c.violations, fmt.Sprintf("event %d: ", seq)+fmt.Sprintf(format, args...))
	}
}

// check processes the events in order. It may be called again with more
// events (it continues after the last sequence number seen).
func (c *checker) check(events []*messages.Envelope, files int) {
	for _, env := range events {
		if env.Seq <= c.seq {
			continue
		}
		if env.Seq != c.seq+1 {
			c.violate(env.Seq, "sequence gap: %d follows %d", env.Seq, c.seq)
		}
		c.seq = env.Seq
		switch ev := env.Event.(type) {
		case *messages.ConfigLoaded:
			c.configLoaded(env.Seq, ev, files)
		case *messages.PlanComputed:
			c.planComputed(env.Seq, ev)
		case *messages.ServerStateChanged:
			c.stateChanged(env.Seq, ev)
		}
	}
}

var markerRE = regexp.MustCompile(`unknown field "x-chaos-w(\d+)" is ignored`)

// attribute finds which write of each file a read used: the desired state
// it predicts and, per file, the marker id (0: none).
func (c *checker) attribute(seq uint64, ev *messages.ConfigLoaded, files int) (desired, []int) {
	ids := make([]int, files)
	for _, d := range ev.Diagnostics {
		m := markerRE.FindStringSubmatch(d.Message)
		if m == nil {
			continue
		}
		id, _ := strconv.Atoi(m[1])
		w := c.writes[id]
		if w == nil {
			c.violate(seq, "config.loaded names marker %d, which no write made", id)
			continue
		}
		if ids[w.file] != 0 && ids[w.file] != id {
			c.violate(seq, "config.loaded shows two versions of file %d: writes %d and %d", w.file, ids[w.file], id)
		}
		ids[w.file] = id
	}
	contents := make([]map[string]entry, files)
	for f, id := range ids {
		if id != 0 {
			contents[f] = c.writes[id].entries
		} else {
			c.readsWithout[markerName(f)]++
		}
	}
	return merge(contents...), ids
}

func (c *checker) configLoaded(seq uint64, ev *messages.ConfigLoaded, files int) {
	c.reads++
	ds, ids := c.attribute(seq, ev, files)
	if ev.Servers != ds.valid() {
		c.violate(seq, "config.loaded found %d valid servers; the writes it read (%v) declare %d: %s", ev.Servers, ids, ds.valid(), ds)
	}
	if !ev.Changed {
		// Either the same desired state again, or what a dry-run read
		// found (a dry run commits nothing): it defines no generation.
		return
	}
	c.commits++
	if ev.Generation != c.committed+1 {
		c.violate(seq, "committed generation %d follows %d", ev.Generation, c.committed)
	}
	c.committed = ev.Generation
	c.dsByGen[ev.Generation] = ds
}

func (c *checker) track(name string) *serverTrack {
	tr := c.servers[name]
	if tr == nil {
		tr = &serverTrack{state: messages.StateStopped}
		c.servers[name] = tr
	}
	return tr
}

func (c *checker) planComputed(seq uint64, ev *messages.PlanComputed) {
	if ev.DryRun {
		c.dryPlans++
		return
	}
	c.plans++
	ds, ok := c.dsByGen[ev.Generation]
	if !ok {
		c.violate(seq, "plan for generation %d, which no config.loaded committed", ev.Generation)
		return
	}
	stepped := map[string]bool{}
	for _, st := range ev.Steps {
		c.steps[string(st.Action)]++
		stepped[st.Server] = true
		c.step(seq, ev.Generation, st, ds)
	}
	for name, d := range ds {
		if !d.invalid && !d.disabled && !stepped[name] {
			c.violate(seq, "plan for generation %d has no step for %s, which the config declares", ev.Generation, name)
		}
	}
}

// step checks one plan step against the desired state and mirrors its
// effect on the fleet's record of the server.
func (c *checker) step(seq, gen uint64, st messages.PlanStep, ds desired) {
	d, declared := ds[st.Server]
	runnable := declared && !d.invalid && !d.disabled
	tr := c.servers[st.Server]
	live := tr != nil && tr.state != messages.StateStopping && tr.state != messages.StateStopped
	observed := ""
	if live {
		observed = tr.spec
		if tr.next != "" {
			observed = tr.next
		}
	}
	// A step that breaks a rule is reported, and its effect mirrored all
	// the same, so that one wrong step is reported once.
	bad := func(why string) {
		c.violate(seq, "generation %d: %s %s (%s): %s; desired %+v, observed %q, state %v", gen, st.Action, st.Server, st.Reason, why, d, observed, stateOf(tr))
	}
	switch st.Action {
	case messages.ActionStart:
		if !runnable || live {
			bad("start needs a declared, enabled server that does not run")
		}
		tr = c.track(st.Server)
		tr.spec, tr.next, tr.stepped = d.key, "", true
	case messages.ActionRestart:
		if !runnable || !live || observed == d.key {
			bad("restart needs a running server whose spec changed")
		}
		tr = c.track(st.Server)
		if tr.state == messages.StateReady {
			tr.next = d.key // make before break
		} else {
			tr.spec, tr.next = d.key, ""
		}
		tr.stepped = true
	case messages.ActionRetry:
		if !runnable || !live || observed != d.key || tr.state != messages.StateFailed {
			bad("retry needs a failed server whose spec did not change")
		}
		tr = c.track(st.Server)
		tr.spec, tr.stepped = d.key, true
	case messages.ActionStop:
		switch {
		case st.Reason == "removed" && declared:
			bad("stopped as removed but declared")
		case st.Reason == "disabled" && !(declared && d.disabled):
			bad("stopped as disabled but not disabled")
		case !live:
			bad("stop of a server that does not run")
		}
		if tr != nil {
			tr.stepped = true
		}
	case messages.ActionKeep:
		switch st.Reason {
		case "disabled":
			if !declared || !d.disabled {
				bad("kept as disabled but not disabled")
			}
		case "invalid: keeping last valid session":
			if !declared || !d.invalid || !live {
				bad("kept as invalid but not an invalid entry of a running server")
			}
		default: // unchanged, failed: waiting for retry
			if !runnable || !live || observed != d.key {
				bad("kept as unchanged but its spec changed (or it does not run)")
			}
			if tr == nil {
				return
			}
			if live && tr.state == messages.StateReady && tr.next == "" && observed == d.key {
				c.keptReady++
			}
			// Live settings only: they apply to the pending change if
			// there is one, else to the serving session.
			if tr.next != "" {
				tr.next = d.key
			} else {
				tr.spec = d.key
			}
		}
	default:
		bad("unknown action")
	}
}

func stateOf(tr *serverTrack) string {
	if tr == nil {
		return "none"
	}
	return fmt.Sprintf("%s (cur %d, spec %q, next %q)", tr.state, tr.cur, tr.spec, tr.next)
}

func (c *checker) stateChanged(seq uint64, ev *messages.ServerStateChanged) {
	c.transitions++
	if ev.To == messages.StateInvalid {
		return // published for the entry, whatever runs under that name
	}
	tr := c.track(ev.Server)
	if ev.From != tr.state {
		c.violate(seq, "%s: transition %s→%s, but it was %s", ev.Server, ev.From, ev.To, tr.state)
	}
	if !reconciler.LegalTransition(ev.From, ev.To) {
		c.violate(seq, "%s: %s→%s is not a documented transition (%s)", ev.Server, ev.From, ev.To, ev.Reason)
	}
	if ev.PID > 0 {
		c.pids[ev.PID] = true
	}
	newSession := ev.Session != 0 && ev.Session != tr.cur && ev.To != messages.StateStopped && ev.To != messages.StateStopping
	// A make-before-break session becoming ready is the swap its restart
	// step announced, even when the old session died meanwhile and a
	// retry of the old spec is connecting.
	swap := newSession && ev.To == messages.StateReady && tr.next != ""
	if newSession && !swap && (tr.state == messages.StateReady || tr.state == messages.StateStarting) && !tr.stepped {
		c.violate(seq, "%s got a new session %d (was %d, %s) with no plan step for it: %s→%s %q",
			ev.Server, ev.Session, tr.cur, tr.state, ev.From, ev.To, ev.Reason)
	}
	switch {
	case ev.To == messages.StateStopped:
		delete(c.servers, ev.Server)
		return
	case ev.From == messages.StateReady && ev.To == messages.StateReady && ev.Error != "":
		// A changed spec whose new session failed; the old one serves on.
		c.brokenChanges++
		tr.next = ""
	case ev.To == messages.StateFailed && tr.next != "" && ev.Session != tr.cur:
		// A changed spec whose new session failed after the old one had
		// died: the server has failed, on its new spec.
		c.brokenChanges++
		tr.spec, tr.next = tr.next, ""
	case ev.To == messages.StateReady && newSession:
		// Only a make-before-break session becomes ready without having
		// been reported starting.
		if tr.next == "" {
			c.violate(seq, "%s became ready on session %d, which it never started (current %d)", ev.Server, ev.Session, tr.cur)
		} else {
			tr.spec, tr.next = tr.next, ""
		}
		tr.cur = ev.Session
	case newSession:
		tr.cur = ev.Session
	case ev.To == messages.StateFailed && ev.Session == tr.cur:
		tr.cur = 0
	}
	tr.state, tr.stepped = ev.To, false
}
