// Command bench is mcpvisor's end-to-end benchmark harness (`make bench`,
// `make bench-peers`, `make bench-gateway`). It drives the real
// `mcpvisor run` binary as a process, over its HTTP API and event stream,
// and `mcpvisor serve` as an MCP client of it over stdio and streamable
// HTTP, against real stdio MCP servers, and prints what it measured as
// Markdown tables; the figures recorded in docs/benchmarks.md come from
// it.
//
//	go run . [-only edit,crash,cold,idle,resync,close,peers,call,throughput,start,notify] [-servers 100] [-edits 20] ...
//
// Every process it starts runs in a process group of its own that dies
// with the harness; every server pid it learns of is killed at the end if
// it is still alive. Everything listens on 127.0.0.1 only. Every wait is
// bounded.
//
// It is its own module (test/bench/go.mod), so `go test ./...` at the
// repository root neither builds nor runs it, and its plotting library
// stays out of mcpvisor's dependencies.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

type options struct {
	only           string
	servers        int
	edits          int
	crashes        int
	coldServers    int
	coldReps       int
	idle           time.Duration
	failed         int
	resyncReps     int
	debounce       time.Duration
	peerRounds     int
	peerEdits      int
	peerKillWait   time.Duration
	peerInheritEnv bool
	plot           string
	callRounds     int
	callPlot       string
	callers        int
	throughputTime time.Duration
	throughputReps int
	startServers   int
	startDelay     time.Duration
	startBig       int
	startReps      int
	notifyEdits    int
	serveLog       string
	jsonOut        string
	bin            string
	keep           bool
	timeout        time.Duration
}

// scenarios in the order they run; "peers" is the side-by-side run with
// mcp-hub (make bench-peers); call, throughput, start and notify measure
// the gateway, `mcpvisor serve` (make bench-gateway).
var allScenarios = []string{"edit", "crash", "cold", "close", "idle", "resync", "peers", "call", "throughput", "start", "notify"}

// gatewayScenarios are those of `mcpvisor serve` (make bench-gateway).
const gatewayScenarios = "call,throughput,start,notify"

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.StringVar(&o.only, "only", "edit,crash,cold,close,idle,resync", "scenarios to run, comma-separated: "+strings.Join(allScenarios, ",")+" (all: every one but peers and the gateway's; gateway: "+gatewayScenarios+")")
	fs.IntVar(&o.servers, "servers", 100, "fleet size for edit, crash, idle and resync")
	fs.IntVar(&o.edits, "edits", 20, "edits (each adds one server) for edit")
	fs.IntVar(&o.crashes, "crashes", 20, "kill -9 of distinct servers for crash")
	fs.IntVar(&o.coldServers, "cold-servers", 200, "servers for cold and close")
	fs.IntVar(&o.coldReps, "cold-reps", 5, "repetitions of cold (and close), alternating with the raw go-sdk bound")
	fs.DurationVar(&o.idle, "idle", 60*time.Second, "window over which idle CPU is measured")
	fs.IntVar(&o.failed, "failed", 10, "failed servers (of -servers) that resync brings back")
	fs.IntVar(&o.resyncReps, "resync-reps", 3, "repetitions of resync")
	fs.DurationVar(&o.debounce, "debounce", 100*time.Millisecond, "mcpvisor's --debounce (its default), subtracted from edit-to-ready")
	fs.IntVar(&o.peerRounds, "peer-rounds", 5, "peers: rounds, each running mcpvisor and mcp-hub once (alternating which goes first)")
	fs.IntVar(&o.peerEdits, "peer-edits", 4, "peers: add-server edits per round and system")
	fs.DurationVar(&o.peerKillWait, "peer-kill-wait", 5*time.Second, "peers: how long to wait for a recovery after kill -9 before calling it none")
	fs.BoolVar(&o.peerInheritEnv, "peer-inherit-env", false, "peers: start both managers with the harness's whole environment, NODE_EXTRA_CA_CERTS and NODE_OPTIONS included (see docs/benchmarks.md)")
	fs.StringVar(&o.plot, "plot", "", "peers: write a PNG strip plot of edit-to-connected latencies here")
	fs.IntVar(&o.callRounds, "call-rounds", 2000, "call: rounds, each calling echo once through every path")
	fs.StringVar(&o.callPlot, "call-plot", "", "call: write a PNG strip plot of the call latencies here")
	fs.IntVar(&o.callers, "callers", 64, "throughput: concurrent callers on one session")
	fs.DurationVar(&o.throughputTime, "throughput-time", 3*time.Second, "throughput: length of one run")
	fs.IntVar(&o.throughputReps, "throughput-reps", 3, "throughput: runs per path, rotating")
	fs.IntVar(&o.startServers, "start-servers", 20, "start: slow example servers")
	fs.DurationVar(&o.startDelay, "start-delay", 200*time.Millisecond, "start: each slow server's --init-delay")
	fs.IntVar(&o.startBig, "start-big", 200, "start: servers (no delay) of the large cold start")
	fs.IntVar(&o.startReps, "start-reps", 5, "start: repetitions, alternating serve and the bare client")
	fs.IntVar(&o.notifyEdits, "notify-edits", 20, "notify: edits, each adding one server")
	fs.StringVar(&o.serveLog, "serve-log", "", "gateway scenarios: append the debug log (JSON lines) of every stdio `mcpvisor serve` here")
	fs.StringVar(&o.jsonOut, "json", "", "also write every raw sample as JSON here")
	fs.StringVar(&o.bin, "bin", "", "mcpvisor binary to use (default: go build ./cmd/mcpvisor into a temp dir)")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory (configs, logs)")
	fs.DurationVar(&o.timeout, "timeout", 45*time.Minute, "bound on the whole run")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch o.only {
	case "all":
		o.only = "edit,crash,cold,close,idle,resync"
	case "gateway":
		o.only = gatewayScenarios
	}
	for _, s := range strings.Split(o.only, ",") {
		if !slices.Contains(allScenarios, s) {
			return o, fmt.Errorf("-only: unknown scenario %q (have %s)", s, strings.Join(allScenarios, ","))
		}
	}
	switch {
	case o.callRounds < 1 || o.callers < 1 || o.throughputReps < 1 || o.startServers < 1 || o.startBig < 1 || o.startReps < 1 || o.notifyEdits < 1:
		return o, errors.New("sizes and counts must be at least 1")
	case o.servers < 1 || o.edits < 1 || o.crashes < 1 || o.coldServers < 1 || o.coldReps < 1 || o.resyncReps < 1 || o.peerRounds < 1 || o.peerEdits < 1:
		return o, errors.New("sizes and counts must be at least 1")
	case o.runs("crash") && o.crashes > o.servers:
		return o, errors.New("-crashes must not exceed -servers: each kill hits a different server (the crash-loop budget is per server)")
	case o.runs("resync") && (o.failed < 1 || o.failed >= o.servers):
		return o, errors.New("-failed must be between 1 and -servers-1")
	}
	return o, nil
}

func (o options) runs(s string) bool { return slices.Contains(strings.Split(o.only, ","), s) }

// harness holds what every scenario shares.
type harness struct {
	opt    options
	root   string // the mcpvisor repository
	work   string // temp dir: configs, state, binaries
	bin    string // the mcpvisor binary
	reaper *reaper
	// conc is mcpvisor's default MaxConnects, computed as it does.
	conc    int
	report  []section
	samples map[string]any // raw samples, for -json and the plot
	// serveLog, with -serve-log, takes the stderr of every stdio serve.
	serveLog *os.File
}

// section is one scenario's part of the report.
type section struct {
	title string
	load  string // load averages at its start and end
	body  string
}

func main() {
	if os.Getenv(httpExampleVar) != "" {
		os.Exit(serveHTTPExample())
	}
	opt, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	os.Exit(run(opt))
}

// run is the whole harness once the flags are parsed: it sets up the work
// directory and the binary, runs the scenarios and writes the samples,
// and returns the exit code, so that its deferred clean-ups run before
// main exits.
func run(opt options) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, opt.timeout)
	defer cancel()

	h := &harness{opt: opt, reaper: newReaper(), conc: max(8, 4*runtime.NumCPU()), samples: map[string]any{}}
	defer h.reaper.killAll()
	var err error
	if h.root, err = repoRoot(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	if h.work, err = os.MkdirTemp("", "mcpvisor-bench-"); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	if opt.keep {
		progress("work directory %s (kept)", h.work)
	} else {
		defer os.RemoveAll(h.work)
	}
	if opt.serveLog != "" {
		if h.serveLog, err = os.OpenFile(opt.serveLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		defer h.serveLog.Close()
	}
	if h.bin, err = h.build(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	fmt.Print(machine(), h.revision())
	failed := h.runScenarios(ctx)
	if opt.jsonOut != "" {
		if err := h.writeJSON(opt.jsonOut); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			failed = true
		}
	}
	if failed || ctx.Err() != nil {
		return 1
	}
	return 0
}

// runScenarios runs the scenarios -only asks for, in the order of the
// report, each bracketed by the load average and its wall time; it adds
// each one's section to the report and prints it as soon as it is done,
// so that a long run shows its figures as they come. It stops before the
// next scenario once ctx ends, and says whether any scenario failed.
func (h *harness) runScenarios(ctx context.Context) (failed bool) {
	steps := []struct {
		name, title string
		run         func(context.Context) (string, error)
	}{
		{"edit", "Edit to ready", h.benchEdit},
		{"crash", "Crash to ready", h.benchCrash},
		{"cold", "Cold start and close", h.benchCold},
		{"idle", "Idle cost", h.benchIdle},
		{"resync", "Resync", h.benchResync},
		{"peers", "Side by side with mcp-hub", h.benchPeers},
		{"call", "A tool call through the gateway", h.benchCall},
		{"throughput", "Concurrent callers through the gateway", h.benchThroughput},
		{"start", "Gateway start", h.benchStart},
		{"notify", "Edit to notified gateway client", h.benchNotify},
	}
	for _, s := range steps {
		if !h.opt.runs(s.name) && !(s.name == "cold" && h.opt.runs("close")) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		progress("== %s", s.name)
		load0 := loadavg()
		t0 := time.Now()
		body, err := s.run(ctx)
		h.reaper.killAll() // nothing of this scenario may outlive it
		if err != nil {
			failed = true
			body += fmt.Sprintf("\n**failed**: %v\n", err)
			progress("%s failed: %v", s.name, err)
		}
		sec := section{title: s.title, load: fmt.Sprintf("load average %s at start, %s at end (%s)", load0, loadavg(), time.Since(t0).Round(time.Second)), body: body}
		h.report = append(h.report, sec)
		fmt.Printf("\n## %s\n\n_%s_\n\n%s", sec.title, sec.load, sec.body)
	}
	return failed
}

// repoRoot finds the mcpvisor module above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for range 10 {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if strings.TrimSpace(first) == "module github.com/mcpvisor/mcpvisor" {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", errors.New("run from inside the mcpvisor repository (no go.mod of github.com/mcpvisor/mcpvisor above the working directory)")
}

// build builds ./cmd/mcpvisor into the work directory, unless -bin says
// which binary to use.
func (h *harness) build(ctx context.Context) (string, error) {
	if h.opt.bin != "" {
		return filepath.Abs(h.opt.bin)
	}
	out := filepath.Join(h.work, "mcpvisor")
	progress("go build -o %s ./cmd/mcpvisor", out)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/mcpvisor")
	cmd.Dir = h.root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %w", err)
	}
	return out, nil
}

func (h *harness) writeJSON(path string) error {
	b, err := json.MarshalIndent(h.samples, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// ns turns a sample into milliseconds, for the JSON record.
func (s sample) msList() []float64 {
	out := make([]float64, len(s))
	for i, d := range s {
		out[i] = float64(d) / float64(time.Millisecond)
	}
	return out
}

func signalNotify(c chan<- os.Signal) { signal.Notify(c, os.Interrupt, syscall.SIGTERM) }

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s bench: %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

func warnf(format string, args ...any) { progress("warning: "+format, args...) }

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
