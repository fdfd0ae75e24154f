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
	"time"
)

// The side-by-side run: mcpvisor and mcp-hub, same npm reference servers
// over stdio, same config file (a format both read), same machine,
// alternating which goes first. What is timed is read from the event
// stream each manager publishes (see manager), stamped when the harness
// reads it.
//
// mcp-hub's `connected` means initialized and tools, resources and
// prompts listed; mcpvisor's `ready` means initialized and tools listed.

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
