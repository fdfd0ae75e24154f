package chaos_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// defaultDuration is how long CI injects faults; with setup, settling and
// the checks the test takes about a minute.
const defaultDuration = 45 * time.Second

// convergeBound bounds the final resync and the wait for convergence: the
// broken servers need a few seconds to spend their crash-loop budget.
const convergeBound = 30 * time.Second

// stopGrace is how long a stopping server gets before its process group
// is signalled.
const stopGrace = 300 * time.Millisecond

// settleBound bounds everything after the faults stop: the final
// resync, convergence, Close and the leak checks.
const settleBound = 90 * time.Second

// chaosParams reads the seed and the duration from the flags, else from
// CHAOS_SEED and CHAOS_DURATION, else a fresh seed and defaultDuration.
func chaosParams(t *testing.T) (seed uint64, d time.Duration) {
	t.Helper()
	seed, d = uint64(*seedFlag), *durationFlag
	if seed == 0 {
		if s := os.Getenv("CHAOS_SEED"); s != "" {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				t.Fatalf("CHAOS_SEED=%q: %v", s, err)
			}
			seed = n
		}
	}
	for seed == 0 {
		seed = rand.Uint64() >> 1 // fits in -chaos.seed's int64
	}
	if d == 0 {
		if s := os.Getenv("CHAOS_DURATION"); s != "" {
			v, err := time.ParseDuration(s)
			if err != nil {
				t.Fatalf("CHAOS_DURATION=%q: %v", s, err)
			}
			d = v
		}
	}
	if d <= 0 {
		d = defaultDuration
	}
	return seed, d
}

// TestChaos supervises a fleet of example servers (stdio, healthy and
// broken) and HTTP servers from two config files while a seeded
// random schedule injects faults for a bounded time: kill -9, SIGSTOP,
// the crash tool, injected failures, hung, failing and garbage-speaking
// servers, config rewrites of every kind (atomic rename, in place,
// vim-style, symlink swap, delete and restore, unusable content), servers
// added, removed, changed, moved, disabled, and resyncs, dry and real,
// with tool calls throughout. Then it writes a final config, resyncs, waits
// (on events) for convergence and checks the invariants listed in
// docs/reliability.md. A failure names the seed that replays the schedule.
func TestChaos(t *testing.T) {
	seed, duration := chaosParams(t)
	replay := fmt.Sprintf("CHAOS_SEED=%d CHAOS_DURATION=%s make chaos  (or: go test -race -run 'TestChaos$' ./test/chaos/ -chaos.seed=%d -chaos.duration=%s)", seed, duration, seed, duration)
	t.Logf("chaos: seed %d, faults for %s; replay: %s", seed, duration, replay)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("chaos FAILED with seed %d; replay: %s", seed, replay)
		}
	})
	r := newRun(t, seed, duration)
	r.setup()
	r.inject()
	r.settle()
	r.closeAndCheckLeaks()
	r.checkEvents()
	r.report()
}

// run is one chaos run.
type run struct {
	t        *testing.T
	seed     uint64
	duration time.Duration
	rng      *rand.Rand // the schedule's: every decision comes from it
	ctx      context.Context
	started  time.Time

	dir     string
	env     *fleetEnv
	files   []*configFile
	writes  map[int]*writeRecord
	nWrites int
	nNames  int
	removed []string // names once configured, now gone (callers try them)

	secrets  *secretScan
	lookup   map[string]string
	http     *httpServers
	logs     *observedLogging
	sup      *actors.Supervisor
	fol      *follower
	calls    *callers
	stopCall context.CancelFunc
	checker  *checker
	fdBefore map[string]string

	mu         sync.Mutex // guards violations, faults (resync goroutine)
	violations []string
	faults     map[string]int // injected, by kind
	logLevels  map[string]int // log lines by level and logger
	warnings   map[string]int // distinct warning and error messages

	frozen      map[int]time.Time // SIGSTOPped pids and when to resume them
	killed      []int
	resyncBusy  atomic.Bool
	resyncs     sync.WaitGroup
	closeTook   time.Duration
	shut        bool // Close and Shutdown were called
	leaks       []string
	finalStatus messages.Status
}

func newRun(t *testing.T, seed uint64, duration time.Duration) *run {
	ctx := actorstest.ContextTimeout(t, duration+settleBound)
	return &run{
		t: t, seed: seed, duration: duration, ctx: ctx,
		rng:     rand.New(rand.NewPCG(seed, 0x6368616f73)),
		writes:  map[int]*writeRecord{},
		secrets: newSecretScan(),
		faults:  map[string]int{}, logLevels: map[string]int{}, warnings: map[string]int{},
		frozen: map[int]time.Time{},
	}
}

// violate records a broken invariant; the run goes on so that the summary
// and every other check still come out.
func (r *run) violate(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.violations) < 40 {
		r.violations = append(r.violations, fmt.Sprintf(format, args...))
	}
}

func (r *run) count(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults[kind]++
}

// setup writes the first config, starts the HTTP servers and the
// Supervisor, and starts the callers. File descriptors are counted before
// anything of the run opens one.
func (r *run) setup() {
	t := r.t
	// The runtime's network poller opens its descriptors on first use and
	// keeps them: use it once before counting.
	if l, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		l.Close()
	}
	r.fdBefore = testkit.OpenFDs(t)

	r.dir = t.TempDir()
	token := r.secrets.newSecret(r.rng, "the expanded ${"+varToken+"} value")
	httpToken := r.secrets.newSecret(r.rng, "the expanded ${"+varHTTPToken+"} bearer token")
	r.lookup = map[string]string{varToken: token, varHTTPToken: httpToken}
	r.env = &fleetEnv{
		bin:       bin,
		pidFile:   filepath.Join(r.dir, "grandchildren.pid"),
		urlPass:   r.secrets.newSecret(r.rng, "the URL password"),
		urlPath:   r.secrets.newSecret(r.rng, "the URL path"),
		urlQuery:  r.secrets.newSecret(r.rng, "the URL query value"),
		argToken:  r.secrets.newSecret(r.rng, "a bearer token in args"),
		runMarker: fmt.Sprintf("%d-%d", os.Getpid(), r.seed),
		tokenFile: filepath.Join(r.dir, "api-token"),
	}
	// The API token is in no server's environment (the CLI strips it):
	// only Options.Secrets tells the redactor about it, and a server that
	// reads the token file prints it.
	apiToken := r.secrets.newSecret(r.rng, "the API token")
	if err := os.WriteFile(r.env.tokenFile, []byte(apiToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.http = startHTTPServers(httpToken, r.env.urlPath, r.env.urlQuery)
	r.env.liveAddr, r.env.deadAddr = r.http.liveAddr(), r.http.deadAddr()
	if l, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		r.env.downAddr = l.Addr().String() // free once closed: connections are refused
		l.Close()
	}

	for i, symlink := range []bool{false, true} {
		dir := filepath.Join(r.dir, string(rune('a'+i)))
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		f := newConfigFile(i, dir, symlink)
		f.entries[markerName(i)] = entry{Kind: kindMarker, Disabled: true}
		r.files = append(r.files, f)
	}
	a, b := r.files[0].entries, r.files[1].entries
	a[invalidName] = entry{Kind: kindInvalid}
	a["http-live"] = entry{Kind: kindHTTP, Secret: r.secrets.newSecret(r.rng, "a header value")}
	b["http-500"] = entry{Kind: kindHTTP500, Secret: r.secrets.newSecret(r.rng, "a header value")}
	b["http-down"] = entry{Kind: kindHTTPDown, Secret: r.secrets.newSecret(r.rng, "a header value")}
	for _, k := range []serverKind{kindOK, kindOK, kindSlow, kindFlaky, kindInitFail, kindHang} {
		r.addServer(a, k)
	}
	for _, k := range []serverKind{kindOK, kindWrapped, kindGarbage} {
		r.addServer(b, k)
	}
	for _, f := range r.files {
		r.writeValid(f, "create")
	}

	r.logs = newObservedLogging()
	var err error
	r.sup, err = actors.Start(actors.Options{
		ConfigPaths: []string{r.files[0].path, r.files[1].path},
		Logger:      r.logs.logger,
		LookupEnv: func(k string) (string, bool) {
			v, ok := r.lookup[k]
			return v, ok
		},
		Environ:        func() []string { return append(os.Environ(), "CHAOS_RUN="+r.env.runMarker) },
		Secrets:        []string{apiToken},
		Debounce:       25 * time.Millisecond,
		MaxWait:        time.Second,
		ConnectTimeout: 5 * time.Second,
		CallTimeout:    3 * time.Second,
		StopGrace:      stopGrace,
		ProbeInterval:  500 * time.Millisecond,
		ProbeTimeout:   time.Second,
		Backoff:        reconciler.Backoff{Initial: 50 * time.Millisecond, Max: time.Second, Jitter: 0.2},
	})
	if err != nil {
		t.Fatal(err)
	}
	// If the test stops early (t.Fatal), still stop everything it started.
	t.Cleanup(func() {
		if r.stopCall != nil {
			r.stopCall()
			r.calls.wait()
		}
		r.resyncs.Wait()
		if !r.shut {
			r.sup.Close()
			r.fol.stop()
		}
		r.http.close()
	})
	r.fol = follow(r.sup)
	r.checker = newChecker(r.writes)
	r.calls = newCallers(r.sup, r.secrets)
	r.updateNames()
	var callCtx context.Context
	callCtx, r.stopCall = context.WithCancel(r.ctx)
	r.calls.start(callCtx, 3, r.seed)
	r.started = time.Now()
}

// addServer adds a new server of kind k to entries.
func (r *run) addServer(entries map[string]entry, k serverKind) string {
	r.nNames++
	name := fmt.Sprintf("%s-%d", k, r.nNames)
	entries[name] = entry{Kind: k, Variant: r.rng.IntN(4), Secret: r.secrets.newSecret(r.rng, "the env value of "+name)}
	return name
}

// writeValid writes f's entries with a new marker and records the write.
func (r *run) writeValid(f *configFile, mode string) {
	r.nWrites++
	id := r.nWrites
	data := renderFile(f.entries, id, f.index, r.env, r.rng)
	pause := time.Duration(r.rng.IntN(300)) * time.Millisecond
	r.writes[id] = &writeRecord{id: id, file: f.index, mode: mode, valid: true, entries: maps.Clone(f.entries)}
	var err error
	if mode == "create" {
		err = f.create(data)
	} else {
		err = f.write(r.ctx, mode, data, pause)
	}
	if err != nil {
		r.t.Fatalf("write %s (%s): %v", f.path, mode, err)
	}
	r.count("valid write: " + mode)
}

// updateNames tells the callers which servers to call: every configured
// server that has an echo tool, a few removed ones and one never
// configured.
func (r *run) updateNames() {
	n := &callNames{others: []string{"never-configured"}}
	for _, f := range r.files {
		for name, e := range f.entries {
			if e.Kind.stdio() || e.Kind.http() {
				n.configured = append(n.configured, name)
			}
		}
	}
	slices.Sort(n.configured)
	if k := len(r.removed); k > 0 {
		n.others = append(n.others, r.removed[max(0, k-3):]...)
	}
	r.calls.names.Store(n)
}

// observe reads what an embedder reads (status and tools) and the logs so
// far, and scans them.
func (r *run) observe() {
	st := r.sup.Status()
	data, _ := json.Marshal(st)
	r.secrets.check("status snapshots", "Status()", string(data))
	data, _ = json.Marshal(r.sup.Tools())
	r.secrets.check("tool list snapshots", "Tools()", string(data))
	r.drainLogs()
}

// drainLogs checks every log line captured since the last call: no panic,
// no secret, no error-level line from mcpvisor's own loggers.
func (r *run) drainLogs() {
	for _, e := range r.logs.logs.TakeAll() {
		r.checkLog(e)
	}
}

func (r *run) checkLog(e observer.LoggedEntry) {
	line := logLine(e)
	r.mu.Lock()
	r.logLevels[e.Level.String()+" "+e.LoggerName]++
	if e.Level >= zapcore.WarnLevel || e.LoggerName == "protoactor" {
		r.warnings[e.Level.CapitalString()+" "+e.LoggerName+": "+e.Message]++
	}
	r.mu.Unlock()
	r.secrets.check("log lines", "a log line", line)
	if isPanicLine(e) {
		r.violate("a panic was recovered: %s", line)
	}
	if e.Level >= zapcore.ErrorLevel {
		r.violate("error-level log line: %s", line)
	}
}

// expected is what the final config wants of one server.
type expected string

const (
	wantReady    expected = "ready"
	wantFailed   expected = "failed and parked with an error, or ready on its previous session with a warning"
	wantDisabled expected = "disabled"
	wantInvalid  expected = "invalid"
)

func expectationOf(d dsEntry) expected {
	switch {
	case d.invalid:
		return wantInvalid
	case d.disabled:
		return wantDisabled
	case d.kind.broken():
		return wantFailed
	default:
		return wantReady
	}
}

// settle stops the faults, writes a final known-good config, resyncs, and
// waits on events until the fleet has converged; then it checks the final
// state.
func (r *run) settle() {
	t := r.t
	r.stopCall()
	r.calls.wait()
	r.resyncs.Wait()
	for pid := range r.frozen {
		r.thaw(pid)
	}
	for _, pid := range r.killed {
		ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
		if err := testkit.WaitProcessGone(ctx, pid); err != nil {
			r.violate("killed process %d: %v", pid, err)
		}
		cancel()
	}
	// The final config: everything but the servers that flap by design,
	// with the HTTP servers enabled (the live one must end ready, the
	// others failed).
	for _, f := range r.files {
		for name, e := range f.entries {
			switch e.Kind {
			case kindFlaky:
				delete(f.entries, name)
			case kindHTTP, kindHTTP500, kindHTTPDown:
				e.Disabled = false
				f.entries[name] = e
			}
		}
	}
	r.writeValid(r.files[0], modeAtomic)
	r.writeValid(r.files[1], modeSwap)
	final := merge(r.files[0].entries, r.files[1].entries)

	ctx, cancel := context.WithTimeout(r.ctx, convergeBound)
	defer cancel()
	plan, done, err := r.sup.Resync(ctx, false)
	r.scanResync("the final resync", plan, done, err)
	if err != nil {
		r.violate("the final resync: %v", err)
		return
	}
	for {
		r.checker.check(r.fol.events(), len(r.files))
		why := r.converged(final)
		if why == "" {
			break
		}
		select {
		case <-r.fol.changed:
			continue
		case <-ctx.Done():
		}
		st, _ := json.MarshalIndent(r.sup.Status(), "", "  ")
		r.violate("no convergence within %s of the final resync: %s", convergeBound, why)
		t.Logf("status when convergence was given up on:\n%s", st)
		r.finalStatus = r.sup.Status()
		return
	}
	r.finalStatus = r.sup.Status()
	r.drainLogs()

	// What a dry run plans now must be nothing: live equals desired.
	dry, _, err := r.sup.Resync(ctx, true)
	r.scanResync("the final dry run", dry, nil, err)
	if err != nil {
		r.violate("the final dry run: %v", err)
		return
	}
	kept := map[string]bool{} // broken changes still served by the previous session
	for _, s := range r.finalStatus.Servers {
		kept[s.Name] = s.State == messages.StateReady && s.Warning != ""
	}
	for _, st := range dry.Steps {
		want := expectationOf(final[st.Server])
		ok := st.Action == messages.ActionKeep ||
			st.Action == messages.ActionRetry && want == wantFailed ||
			st.Action == messages.ActionRestart && want == wantFailed && kept[st.Server]
		if !ok {
			r.violate("after convergence a dry run still plans %s %s (%s)", st.Action, st.Server, st.Reason)
		}
	}
	// Every ready server answers.
	for name, d := range final {
		if expectationOf(d) != wantReady {
			continue
		}
		msg := "final-" + name
		res, err := r.sup.CallTool(ctx, actors.QualifiedName(name, "echo"), map[string]any{"message": msg})
		switch {
		case err != nil:
			r.violate("after convergence %s__echo failed: %v", name, err)
		case testkit.Text(res) != msg:
			r.violate("after convergence %s__echo answered %q", name, testkit.Text(res))
		}
	}
	if why := r.converged(final); why != "" {
		r.violate("converged, then no longer: %s", why)
	}
}

// converged says why the fleet has not converged on final yet ("" once
// it has): status lists exactly the final config's servers, the final
// desired state is applied, and each server is in its expected state.
func (r *run) converged(final desired) string {
	st := r.sup.Status()
	got := map[string]messages.ServerStatus{}
	for _, s := range st.Servers {
		got[s.Name] = s
	}
	if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(final))) {
		return fmt.Sprintf("status lists %v, the config %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(final)))
	}
	if st.ObservedGeneration != st.Generation {
		return fmt.Sprintf("generation %d, observed %d", st.Generation, st.ObservedGeneration)
	}
	if ds, ok := r.checker.dsByGen[st.Generation]; !ok || !ds.equal(final) {
		return fmt.Sprintf("generation %d is not the final config yet", st.Generation)
	}
	for _, name := range slices.Sorted(maps.Keys(final)) {
		s, want := got[name], expectationOf(final[name])
		ok := false
		switch want {
		case wantReady:
			ok = s.State == messages.StateReady && (!final[name].kind.stdio() || s.PID > 0 && testkit.ProcessAlive(s.PID))
		case wantFailed:
			// Failed, with its budget spent; or, when it was changed from
			// a working spec into this broken one, still ready on its
			// previous session with a warning (make-before-break).
			ok = s.State == messages.StateFailed && s.LastError != "" && s.NextRetry.IsZero() ||
				s.State == messages.StateReady && s.Warning != "" && (!final[name].kind.stdio() || s.PID > 0 && testkit.ProcessAlive(s.PID))
		case wantDisabled:
			ok = s.State == messages.StateDisabled
		case wantInvalid:
			ok = s.State == messages.StateInvalid && strings.Contains(s.LastError, varUnset)
		}
		if !ok {
			return fmt.Sprintf("%s: want %s, status %s (pid %d, error %q, next retry %v)", name, want, s.State, s.PID, s.LastError, s.NextRetry)
		}
	}
	return ""
}

// scanResync scans what a resync returned.
func (r *run) scanResync(where string, plan *messages.ResyncPlanned, done *messages.ResyncCompleted, err error) {
	data, _ := json.Marshal([]any{plan, done})
	r.secrets.check("resync answers", where, string(data))
	if err != nil {
		r.secrets.check("resync answers", where+" (error)", err.Error())
	}
}

// closeAndCheckLeaks closes the Supervisor and checks that no process,
// descriptor or event was left behind or lost.
func (r *run) closeAndCheckLeaks() {
	t := r.t
	begin := time.Now()
	if err := r.sup.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	r.closeTook = time.Since(begin)
	r.shut = true
	// Close returns within about StopGrace plus a second (actors.Close);
	// a few seconds more absorb a loaded machine.
	if limit := stopGrace + time.Second + 4*time.Second; r.closeTook > limit {
		r.violate("Close took %s, more than %s", r.closeTook, limit)
	}
	if n := r.fol.stop(); n != 0 {
		r.violate("the event subscription dropped %d events", n)
	}
	r.drainLogs()
	r.checker.check(r.fol.events(), len(r.files))

	leak := func(format string, args ...any) {
		r.leaks = append(r.leaks, fmt.Sprintf(format, args...))
	}
	for pid := range r.checker.pids {
		if testkit.ProcessAlive(pid) {
			leak("server process %d alive after Close", pid)
		}
	}
	// Grandchildren and anything else that carries the run's marker die
	// of the SIGKILL sent to their process group, asynchronously.
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	for _, pid := range append(grandchildren(r.env.pidFile), processesWithMarker(r.env.runMarker)...) {
		if err := testkit.WaitProcessGone(ctx, pid); err != nil {
			leak("process %d of the run alive after Close: %v", pid, err)
		}
	}
	if kids := testkit.Children(t); len(kids) > 0 {
		leak("child processes (zombies included) after Close: %v", kids)
	}
	r.http.close()
	after := testkit.OpenFDs(t)
	for fd, target := range after {
		if was, ok := r.fdBefore[fd]; !ok || was != target {
			leak("fd %s -> %s opened during the run and still open", fd, target)
		}
	}
	for fd, target := range r.fdBefore {
		if _, ok := after[fd]; !ok {
			leak("fd %s -> %s, open before the run, was closed", fd, target)
		}
	}
	for _, l := range r.leaks {
		t.Error(l)
	}
}

// checkEvents replays the whole event log through the checker and scans
// every event for secrets.
func (r *run) checkEvents() {
	events := r.fol.events()
	for _, env := range events {
		data, _ := json.Marshal(env)
		r.secrets.check("events", fmt.Sprintf("event %d", env.Seq), string(data))
	}
	r.checker.check(events, len(r.files))
	for _, v := range r.checker.violations {
		r.t.Error(v)
	}
	if n := r.checker.nViolation; n > len(r.checker.violations) {
		r.t.Errorf("… and %d more event violations", n-len(r.checker.violations))
	}
	if len(r.checker.violations) > 0 {
		r.t.Logf("events around the first violation:\n%s", r.around(r.checker.violations[0], events))
	}
	for _, v := range r.violations {
		r.t.Error(v)
	}
	for _, l := range r.secrets.leaks {
		r.t.Error("secret leaked: " + l)
	}
	for _, v := range r.calls.violations {
		r.t.Error("tool call: " + v)
	}
}

// around renders the events near the one a violation names.
func (r *run) around(violation string, events []*messages.Envelope) string {
	var seq uint64
	fmt.Sscanf(violation, "event %d:", &seq)
	var b strings.Builder
	for _, env := range events {
		if env.Seq+25 >= seq && env.Seq <= seq+5 {
			data, _ := json.Marshal(env.Event)
			if len(data) > 600 {
				data = append(data[:600], "…"...)
			}
			fmt.Fprintf(&b, "  %5d %-16s %s\n", env.Seq, env.Event.EventType(), data)
		}
	}
	return b.String()
}
