package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The side-by-side run: mcpvisor and mcp-hub, same npm reference servers
// over stdio, same config file (a format both read), same machine,
// alternating which goes first. What is timed is read from the event
// stream each manager publishes (see manager), stamped when the harness
// reads it.
//
// mcp-hub's `connected` means initialized and tools, resources and
// prompts listed; mcpvisor's `ready` means initialized and tools listed.

// pollEvery paces the untimed waits on a manager's API.
const pollEvery = 10 * time.Millisecond

// nodeKit knows where the peer kit's servers are.
type nodeKit struct {
	node, peers, work string
}

func (k nodeKit) mod(pkg string) string {
	return filepath.Join(k.peers, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
}

// server returns the entry for a server of the given kind named name.
// Every entry sets BENCH_SERVER to its name, which is how the harness
// tells the servers' processes apart under either manager.
func (k nodeKit) server(kind, name string) entry {
	e := entry{Command: k.node, Env: map[string]string{"BENCH_SERVER": name}}
	switch kind {
	case "everything":
		e.Args = []string{k.mod("server-everything"), "stdio"}
	case "memory":
		e.Args = []string{k.mod("server-memory")}
		e.Env["MEMORY_FILE_PATH"] = filepath.Join(k.work, "memory-"+name+".jsonl")
	case "filesystem":
		e.Args = []string{k.mod("server-filesystem"), filepath.Join(k.work, "fsroot")}
	case "sequential-thinking":
		e.Args = []string{k.mod("server-sequential-thinking")}
		e.Env["DISABLE_THOUGHT_LOGGING"] = "true"
	}
	return e
}

// fleets: 2 servers (as in the peer kit's mcp-hub benchmark) and 10.
func (k nodeKit) fleet2() fleet {
	return fleet{"everything-1": k.server("everything", "everything-1"), "memory-1": k.server("memory", "memory-1")}
}

func (k nodeKit) fleet10() fleet {
	f := fleet{}
	for i, kind := range []string{"everything", "memory", "sequential-thinking", "filesystem", "everything", "memory", "sequential-thinking", "filesystem", "everything", "memory"} {
		name := fmt.Sprintf("%s-%d", kind, i/4+1)
		f[name] = k.server(kind, name)
	}
	return f
}

// nodeStartVars are environment variables that change how long every
// Node process takes to start. NODE_EXTRA_CA_CERTS (set on this machine)
// makes each one read and parse a CA bundle: about 50-90 ms more per start.
// mcpvisor passes its whole environment to servers; mcp-hub (through the
// TypeScript SDK) passes only HOME, LOGNAME, PATH, SHELL, TERM and USER
// plus the entry's env. Unless -peer-inherit-env, both managers are started
// without these variables, so both run the same servers the same way.
var nodeStartVars = []string{"NODE_EXTRA_CA_CERTS", "NODE_OPTIONS"}

// peerEnv is the environment both managers are started with.
func (h *harness) peerEnv() []string {
	env := os.Environ()
	if h.opt.peerInheritEnv {
		return env
	}
	return slices.DeleteFunc(env, func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(nodeStartVars, k)
	})
}

// peerRun is what one round measured for one manager.
type peerRun struct {
	cold2, cold10 time.Duration
	edits         sample // add a server: write → connected
	// write → the event that says it begins applying the edit
	applying sample
	// mcpvisor only, from its events: write → config.loaded, and the
	// added server's starting → ready.
	editLoaded, editStart sample
	// the added server's own start-up: raw go-sdk spawn + Connect +
	// ListTools, measured before each edit.
	startups          sample
	keptOnAdd         bool // the untouched servers kept their processes across the add edits
	envEdit           time.Duration
	restartedOthers   int // servers other than the edited one whose process changed
	killRecovered     bool
	killRecovery      time.Duration
	killStillUp       bool // the API still called the killed server connected at the end of the wait
	shutdown          time.Duration
	leftAfterShutdown int // server processes still alive when the manager had exited
	leftAfterSecond   int // and one second later
}

func (h *harness) benchPeers(ctx context.Context) (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("node not found: the side-by-side run needs Node.js 20 or later")
	}
	kit := nodeKit{node: node, peers: filepath.Join(h.root, "test", "bench", "peers"), work: h.work}
	if _, err := os.Stat(filepath.Join(kit.peers, "node_modules", "mcp-hub", "dist", "cli.js")); err != nil {
		return "", errors.New("the peer kit is not installed: run `make bench-peers` (npm ci in test/bench/peers)")
	}
	if err := os.MkdirAll(filepath.Join(h.work, "fsroot"), 0o755); err != nil {
		return "", err
	}
	ours := &visorManager{h: h}
	theirs := &hubManager{h: h, peers: kit.peers, node: node}
	runs := map[string][]peerRun{}
	for round := range h.opt.peerRounds {
		order := []manager{ours, theirs}
		if round%2 == 1 {
			order = []manager{theirs, ours}
		}
		for _, m := range order {
			progress("peers round %d: %s", round, m.name())
			r, err := h.peerRound(ctx, kit, m, round)
			m.stop()
			h.reaper.killAll()
			if err != nil {
				return "", fmt.Errorf("%s, round %d: %w", m.name(), round, err)
			}
			runs[m.name()] = append(runs[m.name()], r)
			progress("  cold2 %s cold10 %s edits %s env %s (restarted others %d) kill recovered %v %s",
				ms(r.cold2), ms(r.cold10), r.edits.mmm(), ms(r.envEdit), r.restartedOthers, r.killRecovered, ms(r.killRecovery))
		}
	}
	return h.peerReport(runs), nil
}

// peerRound runs every side-by-side scenario once on m.
func (h *harness) peerRound(ctx context.Context, kit nodeKit, m manager, round int) (peerRun, error) {
	var r peerRun
	cfg := filepath.Join(h.work, fmt.Sprintf("peer-%s-%d.json", m.name(), round))

	// Cold start of 2.
	f2 := kit.fleet2()
	if err := f2.write(cfg); err != nil {
		return r, err
	}
	var err error
	if r.cold2, err = h.peerColdStart(ctx, m, cfg, f2); err != nil {
		return r, fmt.Errorf("cold start of 2: %w", err)
	}
	m.stop()
	if err := sleep(ctx, 500*time.Millisecond); err != nil {
		return r, err
	}

	// Cold start of 10; this one keeps running for the rest of the round.
	f10 := kit.fleet10()
	if err := f10.write(cfg); err != nil {
		return r, err
	}
	if r.cold10, err = h.peerColdStart(ctx, m, cfg, f10); err != nil {
		return r, fmt.Errorf("cold start of 10: %w", err)
	}
	if err := sleep(ctx, time.Second); err != nil {
		return r, err
	}

	// Edits that add a server (and take it out again).
	before := serverPIDs(m, h.reaper)
	added := "filesystem-added"
	withAdded := f10.with(fleet{added: kit.server("filesystem", added)})
	for i := range h.opt.peerEdits {
		// The added server's own start-up, measured right before the edit.
		fsEntry := kit.server("filesystem", "raw")
		rs, d, err := h.rawStart(ctx, append(h.peerEnv(), envList(fsEntry.Env)...), fsEntry.Command, fsEntry.Args...)
		if err != nil {
			return r, err
		}
		rs.close()
		r.startups = append(r.startups, d)
		if err := sleep(ctx, 300*time.Millisecond); err != nil {
			return r, err
		}

		mark := m.events().mark()
		t0 := time.Now()
		if err := withAdded.write(cfg); err != nil {
			return r, err
		}
		done, err := h.peerEditDone(ctx, m, mark, added)
		if err != nil {
			return r, fmt.Errorf("edit %d: %w", i, err)
		}
		r.edits = append(r.edits, done.Sub(t0))
		actx, cancel := context.WithTimeout(ctx, time.Second) // it came before the done event
		ev, _, err := m.events().wait(actx, mark, m.editApplying(added))
		cancel()
		if err != nil {
			return r, fmt.Errorf("edit %d: no event for applying it: %w", i, err)
		}
		r.applying = append(r.applying, ev.At.Sub(t0))
		if vm, ok := m.(*visorManager); ok {
			loaded, starting, ready := editEvents(vm.v.log.since(mark), added)
			if loaded.Seq != 0 && starting.Seq != 0 && ready.Seq != 0 {
				r.editLoaded = append(r.editLoaded, loaded.Time.Sub(t0))
				r.editStart = append(r.editStart, ready.Time.Sub(starting.Time))
			}
		}
		if err := sleep(ctx, 300*time.Millisecond); err != nil {
			return r, err
		}
		if err := f10.write(cfg); err != nil {
			return r, err
		}
		if _, err := pollServers(ctx, m, 30*time.Second, func(s map[string]peerServer) bool { _, ok := s[added]; return !ok }); err != nil {
			return r, fmt.Errorf("edit %d: %s never removed: %w", i, added, err)
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return r, err
		}
	}
	after := serverPIDs(m, h.reaper)
	r.keptOnAdd = changedProcesses(before, after, f10.names(), "") == 0

	// An edit of one server's env: how long until it is back, and how many
	// of the others got a new process.
	target := "memory-1"
	st, err := m.servers(ctx)
	if err != nil {
		return r, err
	}
	was := st[target].incarnation
	before = serverPIDs(m, h.reaper)
	edited := f10.with(fleet{target: withEnv(f10[target], "BENCH_ROUND", fmt.Sprint(round))})
	mark := m.events().mark()
	t0 := time.Now()
	if err := edited.write(cfg); err != nil {
		return r, err
	}
	done, err := h.peerEditDone(ctx, m, mark, target)
	if err != nil {
		return r, fmt.Errorf("env edit: %w", err)
	}
	r.envEdit = done.Sub(t0)
	if st, err = m.servers(ctx); err != nil || st[target].incarnation == was {
		return r, fmt.Errorf("env edit: %s was not restarted (%v)", target, err)
	}
	if err := sleep(ctx, time.Second); err != nil {
		return r, err
	}
	after = serverPIDs(m, h.reaper)
	r.restartedOthers = changedProcesses(before, after, f10.names(), target)

	// kill -9 of one server: is it noticed and brought back?
	victim := "everything-1"
	pids := serverPIDs(m, h.reaper)[victim]
	if len(pids) != 1 {
		return r, fmt.Errorf("kill: %s has %d processes: %v", victim, len(pids), pids)
	}
	mark = m.events().mark()
	t0 = time.Now()
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		return r, err
	}
	at, err := h.peerRecovered(ctx, m, mark, victim, pids[0])
	switch {
	case err == nil:
		r.killRecovered, r.killRecovery = true, at.Sub(t0)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		st, err := m.servers(ctx)
		if err != nil {
			return r, err
		}
		r.killStillUp = st[victim].up
	default:
		return r, err
	}

	// Shut down: how long, and does anything stay behind? After a pause:
	// a server-everything that was started less than about 350 ms ago has
	// a roots/list request in flight and then ignores stdin EOF (see
	// docs/benchmarks.md), which is a different measurement.
	if err := sleep(ctx, time.Second); err != nil {
		return r, err
	}
	left := serverPIDs(m, h.reaper)
	r.shutdown = m.stop()
	count := func() (n int) {
		for _, ps := range left {
			for _, p := range ps {
				if alive(p) {
					n++
				}
			}
		}
		return n
	}
	r.leftAfterShutdown = count()
	if err := sleep(ctx, time.Second); err != nil {
		return r, err
	}
	r.leftAfterSecond = count()
	return r, nil
}

// peerColdStart starts m on a config holding f and returns the time from
// the process start to the event that says all of f is up, checked
// against its API afterwards.
func (h *harness) peerColdStart(ctx context.Context, m manager, cfg string, f fleet) (time.Duration, error) {
	t0, err := m.start(ctx, cfg)
	if err != nil {
		return 0, err
	}
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	ev, err := m.allUp(wctx, 0, f.names())
	if err != nil {
		return 0, err
	}
	st, err := m.servers(ctx)
	if err != nil {
		return 0, err
	}
	if !allUp(st, f) {
		return 0, fmt.Errorf("%s said all up, but its API shows %v", m.name(), st)
	}
	return ev.At.Sub(t0), nil
}

// peerEditDone waits for the event that says the edit adding or changing
// server is done, and checks the API agrees the server is up.
func (h *harness) peerEditDone(ctx context.Context, m manager, mark int, server string) (time.Time, error) {
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ev, _, err := m.events().wait(wctx, mark, m.editDone(server))
	if err != nil {
		return time.Time{}, fmt.Errorf("%s never done: %w", server, err)
	}
	st, err := m.servers(ctx)
	if err != nil {
		return time.Time{}, err
	}
	if !st[server].up {
		return time.Time{}, fmt.Errorf("%s said the edit of %s is done, but its API shows it %v", m.name(), server, st[server])
	}
	return ev.At, nil
}

// peerRecovered waits, at most -peer-kill-wait, until the killed server
// runs again in a new process and is up. mcpvisor says so with an event
// (its ready); mcp-hub has none for it, so its API and the process table
// are polled every 50 ms.
func (h *harness) peerRecovered(ctx context.Context, m manager, mark int, victim string, old int) (time.Time, error) {
	wctx, cancel := context.WithTimeout(ctx, h.opt.peerKillWait)
	defer cancel()
	if vm, ok := m.(*visorManager); ok {
		ev, _, err := vm.v.log.wait(wctx, mark, func(e event) bool { return e.stateTo(victim, messages.StateReady) })
		if err != nil {
			return time.Time{}, err
		}
		if now := serverPIDs(m, h.reaper)[victim]; len(now) != 1 || now[0] == old {
			return time.Time{}, fmt.Errorf("%s ready again but its processes are %v (killed %d)", victim, now, old)
		}
		return ev.At, nil
	}
	for {
		st, err := m.servers(wctx)
		at := time.Now()
		if err == nil && st[victim].up {
			if now := serverPIDs(m, h.reaper)[victim]; len(now) == 1 && now[0] != old {
				return at, nil
			}
		}
		if err := sleep(wctx, 50*time.Millisecond); err != nil {
			return time.Time{}, err
		}
	}
}

// envList is env as KEY=VALUE pairs.
func envList(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

func withEnv(e entry, k, v string) entry {
	env := map[string]string{}
	for a, b := range e.Env {
		env[a] = b
	}
	env[k] = v
	e.Env = env
	return e
}

func allUp(s map[string]peerServer, f fleet) bool {
	for name := range f {
		if !s[name].up {
			return false
		}
	}
	return true
}

// changedProcesses counts the servers in names (but not except) whose set
// of processes differs between before and after.
func changedProcesses(before, after map[string][]int, names []string, except string) int {
	n := 0
	for _, name := range names {
		if name == except {
			continue
		}
		a, b := slices.Sorted(slices.Values(before[name])), slices.Sorted(slices.Values(after[name]))
		if !slices.Equal(a, b) {
			n++
		}
	}
	return n
}

// pollServers polls m's API every pollEvery until cond holds, for at most
// limit; it returns when the poll that saw it was answered. Only untimed
// waits use it.
func pollServers(ctx context.Context, m manager, limit time.Duration, cond func(map[string]peerServer) bool) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		s, err := m.servers(ctx)
		at := time.Now()
		if err == nil && cond(s) {
			return at, nil
		}
		if err := sleep(ctx, pollEvery); err != nil {
			return time.Time{}, err
		}
	}
}

// peerReport prints the comparison.
func (h *harness) peerReport(runs map[string][]peerRun) string {
	ours, theirs := runs["mcpvisor"], runs["mcp-hub"]
	pick := func(rs []peerRun, f func(peerRun) time.Duration) sample {
		var s sample
		for _, r := range rs {
			s = append(s, f(r))
		}
		return s
	}
	edits := func(rs []peerRun) sample {
		var s sample
		for _, r := range rs {
			s = append(s, r.edits...)
		}
		return s
	}
	var t table
	t.head = []string{"scenario (Node reference servers over stdio)", "mcpvisor min / median / max ms", "mcp-hub min / median / max ms", "ours / theirs: min, median, max"}
	row := func(name string, a, b sample) {
		t.add(name, a.mmm(), b.mmm(), fmt.Sprintf("%.2f, **%.2f**, %.2f",
			float64(a.min())/float64(b.min()), float64(a.median())/float64(b.median()), float64(a.max())/float64(b.max())))
	}
	c2o, c2t := pick(ours, func(r peerRun) time.Duration { return r.cold2 }), pick(theirs, func(r peerRun) time.Duration { return r.cold2 })
	c10o, c10t := pick(ours, func(r peerRun) time.Duration { return r.cold10 }), pick(theirs, func(r peerRun) time.Duration { return r.cold10 })
	eo, et := edits(ours), edits(theirs)
	envo, envt := pick(ours, func(r peerRun) time.Duration { return r.envEdit }), pick(theirs, func(r peerRun) time.Duration { return r.envEdit })
	row(fmt.Sprintf("cold start, 2 servers: process start → all connected (%d runs)", len(c2o)), c2o, c2t)
	row(fmt.Sprintf("cold start, 10 servers (%d runs)", len(c10o)), c10o, c10t)
	row(fmt.Sprintf("edit adding a server → it is connected (%d edits)", len(eo)), eo, et)
	row(fmt.Sprintf("edit of one server's env → it is connected again (%d edits)", len(envo)), envo, envt)
	shutO, shutT := pick(ours, func(r peerRun) time.Duration { return r.shutdown }), pick(theirs, func(r peerRun) time.Duration { return r.shutdown })
	row("SIGTERM → manager exited (10 servers)", shutO, shutT)

	count := func(rs []peerRun, f func(peerRun) int) string {
		var xs []int
		total := 0
		for _, r := range rs {
			xs = append(xs, f(r))
			total += f(r)
		}
		return fmt.Sprintf("%d in all (%v)", total, xs)
	}
	yes := func(rs []peerRun, f func(peerRun) bool) int {
		n := 0
		for _, r := range rs {
			if f(r) {
				n++
			}
		}
		return n
	}
	var u table
	u.head = []string{"behaviour", "mcpvisor", "mcp-hub"}
	u.add("other servers restarted by an env edit of one (9 others per edit)", count(ours, func(r peerRun) int { return r.restartedOthers }), count(theirs, func(r peerRun) int { return r.restartedOthers }))
	u.add("untouched servers kept their processes across the add edits", fmt.Sprintf("%d of %d rounds", yes(ours, func(r peerRun) bool { return r.keptOnAdd }), len(ours)), fmt.Sprintf("%d of %d rounds", yes(theirs, func(r peerRun) bool { return r.keptOnAdd }), len(theirs)))
	killRow := func(rs []peerRun) string {
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
	u.add("kill -9 of a server (everything-1)", killRow(ours), killRow(theirs))
	u.add("server processes still running when the manager had exited after SIGTERM", count(ours, func(r peerRun) int { return r.leftAfterShutdown }), count(theirs, func(r peerRun) int { return r.leftAfterShutdown }))
	u.add("… and one second later", count(ours, func(r peerRun) int { return r.leftAfterSecond }), count(theirs, func(r peerRun) int { return r.leftAfterSecond }))

	h.samples["peers"] = map[string]any{
		"rounds": h.opt.peerRounds, "edits_per_round": h.opt.peerEdits,
		"mcpvisor": map[string]any{"cold2_ms": c2o.msList(), "cold10_ms": c10o.msList(), "edit_ms": eo.msList(), "env_edit_ms": envo.msList()},
		"mcp-hub":  map[string]any{"cold2_ms": c2t.msList(), "cold10_ms": c10t.msList(), "edit_ms": et.msList(), "env_edit_ms": envt.msList()},
	}
	collect := func(rs []peerRun, f func(peerRun) sample) sample {
		var s sample
		for _, r := range rs {
			s = append(s, f(r)...)
		}
		return s
	}
	var b table
	b.head = []string{"where an add edit's time goes", "mcpvisor min / median / max ms", "mcp-hub min / median / max ms"}
	b.add("the added server's own start-up (raw go-sdk spawn + Connect + ListTools, measured before each edit)",
		collect(ours, func(r peerRun) sample { return r.startups }).mmm(), collect(theirs, func(r peerRun) sample { return r.startups }).mmm())
	appO, appT := collect(ours, func(r peerRun) sample { return r.applying }), collect(theirs, func(r peerRun) sample { return r.applying })
	b.add("write → the manager begins applying the edit (mcpvisor: added server starting; mcp-hub: servers_updating)", appO.mmm(), appT.mmm())
	b.add("mcpvisor: write → config.loaded (watch, 100 ms debounce, read)", collect(ours, func(r peerRun) sample { return r.editLoaded }).mmm(), "–")
	b.add("mcpvisor: added server starting → ready (its spawn + connect + list)", collect(ours, func(r peerRun) sample { return r.editStart }).mmm(), "–")
	var plotNote string
	if h.opt.plot != "" {
		if err := h.plotEdits(h.opt.plot, eo, et, appO, appT); err != nil {
			plotNote = fmt.Sprintf("\nplot: %v\n", err)
		} else {
			plotNote = fmt.Sprintf("\nPlot of the edit latencies: %s\n", h.opt.plot)
		}
	}
	envNote := "Both managers (and the raw start-up probe) ran without " + strings.Join(nodeStartVars, " and ") + " in their environment (see nodeStartVars)."
	if h.opt.peerInheritEnv {
		envNote = "Both managers ran with the harness's whole environment (-peer-inherit-env), " + strings.Join(nodeStartVars, " and ") + " included where set."
	}
	editRatio := float64(eo.median()) / float64(et.median())
	others := 0
	for _, r := range ours {
		others += r.restartedOthers
	}
	recovered := yes(ours, func(r peerRun) bool { return r.killRecovered })
	theirRecovered := yes(theirs, func(r peerRun) bool { return r.killRecovered })
	body := t.String() + "\n" + b.String() + "\n" + u.String() + fmt.Sprintf(`
Timed by the event each publishes, stamped when the harness read it from its SSE stream: mcpvisor's server.state ready on /api/v1/events (cold start: the last server's); mcp-hub's subscription_event servers_updated listing the server as added or modified on /api/events (cold start: hub_state ready); each checked afterwards against the API (GET /api/v1/status ready, GET /api/servers connected). Recovery after kill -9: mcpvisor's ready event; mcp-hub has no such event, so its API and the process table were polled every 50 ms. Both with default settings (mcpvisor: 100 ms debounce; mcp-hub --watch: chokidar awaitWriteFinish, 200 ms stability, 100 ms polling). %s

Targets:
- edit-to-connected at most 0.8x mcp-hub's: %s (median ratio %.3f).
- zero restarts of untouched servers on an env edit: %s (%d).
- every kill -9 that mcp-hub does not recover from, covered: %s (mcpvisor recovered %d of %d; mcp-hub %d of %d).
`, envNote, verdict(editRatio <= 0.8), editRatio, verdict(others == 0), others,
		verdict(recovered == len(ours)), recovered, len(ours), theirRecovered, len(theirs))
	return body + plotNote + fmt.Sprintf("\nCommand: `make bench-peers` (= `cd test/bench && go run . -only peers -peer-rounds %d -peer-edits %d -plot ../../docs/edit-to-ready.png`)\n", h.opt.peerRounds, h.opt.peerEdits)
}
