package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// peerServer is one server as a manager's API shows it.
type peerServer struct {
	up bool
	// incarnation changes when the manager (re)started the server:
	// mcpvisor's session number, mcp-hub's lastStarted.
	incarnation string
}

// manager is a supervisor under test in the side-by-side run: mcpvisor
// (`mcpvisor run`) or mcp-hub. Both read the same config file, run the
// same servers, and are asked the same questions. Timed outcomes are read
// from the event stream each publishes for them, as its API clients would
// learn of them; polling a manager's API while it works would load it
// (mcp-hub spends about 2.5 ms of its single event loop on one
// GET /api/servers with 10 servers).
type manager interface {
	name() string
	// start starts it on config and follows its event stream; t0 is taken
	// just before the process starts.
	start(ctx context.Context, config string) (t0 time.Time, err error)
	// events is its event stream since start.
	events() *eventLog
	// allUp matches the event that says every configured server is up
	// (mcpvisor: the last of names turning ready; mcp-hub: hub_state ready).
	allUp(ctx context.Context, from int, names []string) (event, error)
	// editDone matches the event that says an edit that added or changed
	// server is done (mcpvisor: that server's ready; mcp-hub:
	// servers_updated listing it as added or modified).
	editDone(server string) func(event) bool
	// editApplying matches the event that says it has noticed such an edit
	// and begins applying it (mcpvisor: that server's starting; mcp-hub:
	// servers_updating listing it).
	editApplying(server string) func(event) bool
	// servers is what its API says about every server it knows (untimed).
	servers(ctx context.Context) (map[string]peerServer, error)
	// pid of the manager process, whose children are the servers.
	pid() int
	// stop sends SIGTERM and waits (bounded); it returns how long it took.
	stop() time.Duration
}

// visorManager is mcpvisor as a manager.
type visorManager struct {
	h *harness
	v *visor
}

func (m *visorManager) name() string { return "mcpvisor" }

func (m *visorManager) start(ctx context.Context, config string) (time.Time, error) {
	v, t0, err := m.h.startVisor(ctx, config, m.h.peerEnv())
	m.v = v
	return t0, err
}

func (m *visorManager) events() *eventLog { return m.v.log }

func (m *visorManager) allUp(ctx context.Context, from int, names []string) (event, error) {
	evs, err := m.v.log.waitAll(ctx, from, names, func(e event, s string) bool { return e.stateTo(s, messages.StateReady) })
	var last event
	for _, e := range evs {
		if e.At.After(last.At) {
			last = e
		}
	}
	return last, err
}

func (m *visorManager) editDone(server string) func(event) bool {
	return func(e event) bool { return e.stateTo(server, messages.StateReady) }
}

func (m *visorManager) editApplying(server string) func(event) bool {
	return func(e event) bool { return e.stateTo(server, messages.StateStarting) }
}

func (m *visorManager) servers(ctx context.Context) (map[string]peerServer, error) {
	st, err := m.v.status(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]peerServer{}
	for _, s := range st.Servers {
		if s.State == messages.StateStopped {
			continue
		}
		out[s.Name] = peerServer{up: s.State == messages.StateReady, incarnation: strconv.FormatUint(s.Session, 10)}
	}
	return out, nil
}

func (m *visorManager) pid() int { return m.v.pid() }

func (m *visorManager) stop() time.Duration {
	if m.v == nil {
		return 0
	}
	d := m.v.stop()
	m.v = nil
	return d
}

// hubManager is ravitemer's mcp-hub (npm mcp-hub 4.2.1, installed in
// test/bench/peers), started with its HTTP server forced onto 127.0.0.1
// by a preload (peers/loopback.cjs), its state under the work directory, and its
// marketplace cache seeded so it never tries to download its registry.
type hubManager struct {
	h          *harness
	peers      string // test/bench/peers
	node       string
	n          int // starts so far, for separate state directories
	cmd        *exec.Cmd
	port       int
	exited     <-chan struct{}
	log        *eventLog
	stopEvents context.CancelFunc
}

func (m *hubManager) name() string { return "mcp-hub" }

func (m *hubManager) start(ctx context.Context, config string) (time.Time, error) {
	m.n++
	state := filepath.Join(m.h.work, fmt.Sprintf("hub-state-%d", m.n))
	cache := filepath.Join(state, "data", "mcp-hub", "cache")
	for _, d := range []string{cache, filepath.Join(state, "state"), filepath.Join(state, "config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return time.Time{}, err
		}
	}
	// A fresh (now, non-empty) cache: mcp-hub's marketplace only fetches
	// when the cache is missing, empty or older than an hour.
	seed := map[string]any{
		"registry": map[string]any{"version": "offline", "generatedAt": time.Now().UTC().Format(time.RFC3339), "servers": []any{
			map[string]any{"id": "offline", "name": "offline", "description": "seeded by the mcpvisor bench so mcp-hub stays offline",
				"tags": []any{}, "category": "other", "githubUrl": "", "stars": 0, "lastCommit": 0, "updatedAt": 0},
		}},
		"lastFetchedAt": time.Now().UnixMilli(), "serverDocumentation": map[string]any{},
	}
	b, _ := json.Marshal(seed)
	if err := os.WriteFile(filepath.Join(cache, "registry.json"), b, 0o644); err != nil {
		return time.Time{}, err
	}
	port, err := freePort()
	if err != nil {
		return time.Time{}, err
	}
	m.port = port
	logf, err := os.Create(filepath.Join(m.h.work, fmt.Sprintf("hub-%d.log", m.n)))
	if err != nil {
		return time.Time{}, err
	}
	defer logf.Close() // the child has its own descriptor
	cmd := exec.Command(m.node, "--require", filepath.Join(m.peers, "loopback.cjs"),
		filepath.Join(m.peers, "node_modules", "mcp-hub", "dist", "cli.js"),
		"--port", strconv.Itoa(port), "--config", config, "--watch")
	cmd.Dir = m.h.work
	cmd.Env = append(m.h.peerEnv(),
		"XDG_DATA_HOME="+filepath.Join(state, "data"), "XDG_STATE_HOME="+filepath.Join(state, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(state, "config"))
	cmd.Stdout, cmd.Stderr = logf, logf
	m.cmd = cmd
	t0 := time.Now()
	if m.exited, err = m.h.reaper.start(cmd); err != nil {
		return t0, fmt.Errorf("start mcp-hub: %w", err)
	}
	// Wait for its API (until it listens, a connect is refused at once),
	// follow its events, and prove it listens on loopback only.
	deadline := time.Now().Add(30 * time.Second)
	for {
		evCtx, cancel := context.WithCancel(ctx)
		log := newEventLog(hubEvent)
		if err := log.follow(evCtx, fmt.Sprintf("http://127.0.0.1:%d/api/events", port), ""); err == nil {
			m.log, m.stopEvents = log, cancel
			break
		}
		cancel()
		select {
		case <-m.exited:
			return t0, fmt.Errorf("mcp-hub exited at start (log %s)", logf.Name())
		case <-ctx.Done():
			return t0, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return t0, errors.New("mcp-hub API not up within 30s")
		}
	}
	if ok, addrs := loopbackOnly(port); !ok {
		m.stop()
		return t0, fmt.Errorf("mcp-hub listens on %v, not on 127.0.0.1 only: stopped it", addrs)
	}
	return t0, nil
}

func (m *hubManager) servers(ctx context.Context) (map[string]peerServer, error) {
	var ans struct {
		Servers []struct {
			Name        string `json:"name"`
			Status      string `json:"status"`
			LastStarted any    `json:"lastStarted"`
		} `json:"servers"`
	}
	if err := getJSON(ctx, fmt.Sprintf("http://127.0.0.1:%d/api/servers", m.port), &ans); err != nil {
		return nil, err
	}
	out := map[string]peerServer{}
	for _, s := range ans.Servers {
		out[s.Name] = peerServer{up: s.Status == "connected", incarnation: fmt.Sprint(s.LastStarted)}
	}
	return out, nil
}

func (m *hubManager) events() *eventLog { return m.log }

// allUp waits for hub_state ready: mcp-hub sets it once it has started
// every configured server. A stream that starts with ready (the hub was
// faster than the harness's connection) would time the connection, so it
// is refused.
func (m *hubManager) allUp(ctx context.Context, from int, _ []string) (event, error) {
	first, next, err := m.log.wait(ctx, from, func(e event) bool { return e.Type == "hub_state" })
	if err != nil {
		return first, err
	}
	if first.HubState == "ready" {
		return first, errors.New("mcp-hub was ready before its event stream was followed")
	}
	ev, _, err := m.log.wait(ctx, next, func(e event) bool { return e.Type == "hub_state" && e.HubState != "starting" })
	if err == nil && ev.HubState != "ready" {
		err = fmt.Errorf("mcp-hub went %s", ev.HubState)
	}
	return ev, err
}

func (m *hubManager) editDone(server string) func(event) bool {
	return hubChange("servers_updated", server)
}

func (m *hubManager) editApplying(server string) func(event) bool {
	return hubChange("servers_updating", server)
}

func hubChange(typ, server string) func(event) bool {
	return func(e event) bool {
		return e.Type == typ && e.Changes != nil &&
			(slices.Contains(e.Changes.Added, server) || slices.Contains(e.Changes.Modified, server))
	}
}

func (m *hubManager) pid() int { return m.cmd.Process.Pid }

func (m *hubManager) stop() time.Duration {
	if m.cmd == nil {
		return 0
	}
	t0 := time.Now()
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.exited:
	case <-time.After(15 * time.Second):
		warnf("mcp-hub %d did not exit 15s after SIGTERM: killed", m.pid())
		_ = syscall.Kill(-m.pid(), syscall.SIGKILL)
		<-m.exited
	}
	m.cmd = nil
	if m.stopEvents != nil {
		m.stopEvents()
	}
	return time.Since(t0)
}

// freePort asks the kernel for a free port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// serverPIDs maps the servers running under a manager to their pids, by
// the BENCH_SERVER variable every entry of the peer configs sets.
func serverPIDs(m manager, r *reaper) map[string][]int {
	out := map[string][]int{}
	for _, c := range children(m.pid()) {
		if name := environValue(c, "BENCH_SERVER"); name != "" {
			out[name] = append(out[name], c)
			r.track(c)
		}
	}
	return out
}
