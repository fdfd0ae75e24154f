package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// slowBackoff keeps a failed server failed for the rest of a test.
var slowBackoff = reconciler.Backoff{Initial: time.Hour, Max: time.Hour}

// Every way a stdio server can die is a ServerFailed within milliseconds,
// carrying the exit status and the server's last stderr lines.
func TestSession_DeathIsNoticed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		kill   func(t *testing.T, sup *actors.Supervisor, pid int)
		status string // in the error
		stderr string // in the stderr tail
	}{
		{
			name:   "kill -9",
			kill:   func(t *testing.T, _ *actors.Supervisor, pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) },
			status: "signal: killed",
			stderr: "starting",
		},
		{
			name:   "exit 0",
			args:   []string{"--exit-after", "300ms", "--exit-code", "0"},
			status: "exit status 0",
			stderr: "exiting with status 0",
		},
		{
			name: "crash tool",
			kill: func(t *testing.T, sup *actors.Supervisor, _ int) {
				_, _ = sup.CallTool(actorstest.Context(t), "s__crash", map[string]any{})
			},
			status: "exit status 2",
			stderr: "crash tool called",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			cfg := filepath.Join(t.TempDir(), ".mcp.json")
			testkit.WriteConfig(t, cfg, map[string]testkit.Server{"s": testkit.Example(bin, tt.args...)})
			sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff})
			rec := actorstest.Record(t, sup)
			_, ready := rec.WaitState(ctx, 0, "s", messages.StateReady)
			if tt.kill != nil {
				tt.kill(t, sup, ready.PID)
			}
			_, failed := rec.WaitState(ctx, 0, "s", messages.StateFailed)
			if !strings.Contains(failed.Error, tt.status) {
				t.Errorf("error = %q, want it to contain %q", failed.Error, tt.status)
			}
			if !slices.ContainsFunc(failed.StderrTail, func(l string) bool { return strings.Contains(l, tt.stderr) }) {
				t.Errorf("stderr tail = %q, want a line containing %q", failed.StderrTail, tt.stderr)
			}
			if failed.Session != ready.Session || failed.Attempt != 1 || failed.NextRetry.IsZero() {
				t.Errorf("failed event = %+v, want session %d, attempt 1 and a next retry time", failed, ready.Session)
			}
			st := serverStatus(t, sup, "s")
			if st.State != messages.StateFailed || st.LastError != failed.Error || len(st.StderrTail) == 0 {
				t.Errorf("status = %+v, want failed with the error and the stderr tail", st)
			}
		})
	}
}

// A server that hangs in its handshake fails on its connect timeout; a
// healthy sibling is ready long before that.
func TestSession_HungHandshakeDoesNotDelayASibling(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{
		"hung": testkit.Example(bin, "--init-hang"),
		"ok":   testkit.Example(bin),
	})
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, ConnectTimeout: 3 * time.Second, Backoff: slowBackoff})
	rec := actorstest.Record(t, sup)
	okAt, _ := rec.WaitState(ctx, 0, "ok", messages.StateReady)
	hungAt, failed := rec.WaitState(ctx, 0, "hung", messages.StateFailed)
	if okAt > hungAt {
		t.Fatalf("ok became ready (event %d) after hung failed (event %d)", okAt, hungAt)
	}
	if !strings.Contains(failed.Error, "no answer to the MCP handshake within 3s") {
		t.Fatalf("hung's error = %q, want the handshake timeout named", failed.Error)
	}
	if res, err := sup.CallTool(ctx, "ok__echo", map[string]any{"message": "x"}); err != nil || res.IsError {
		t.Fatalf("ok__echo = %+v, %v", res, err)
	}
}

// A server that writes garbage on stdout fails with a reason that names
// the line it printed (not its text); its sibling is not affected.
func TestSession_GarbageOnStdoutFailsOnlyThatServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"noisy": testkit.Example(bin, "--garbage"), "ok": testkit.Example(bin)})
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff})
	rec := actorstest.Record(t, sup)
	_, failed := rec.WaitState(ctx, 0, "noisy", messages.StateFailed)
	for _, want := range []string{`line 1 is not a JSON-RPC message (20 bytes, not shown`, "invalid character"} {
		if !strings.Contains(failed.Error, want) {
			t.Fatalf("error = %q, want %q in it", failed.Error, want)
		}
	}
	rec.WaitState(ctx, 0, "ok", messages.StateReady)
	if got := rec.StateChanges(0, "ok"); slices.Contains(got, "ready→failed") || slices.Contains(got, "starting→failed") {
		t.Fatalf("ok failed too: %v", got)
	}
}

// A grandchild that inherited the server's stderr neither stalls the stop
// nor survives it: the whole process group is signalled.
func TestSession_StopKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".mcp.json")
	pidFile := filepath.Join(dir, "grandchild.pid")
	script := fmt.Sprintf("sleep 300 & echo $! > %s; exec %s example-server", pidFile, bin)
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"wrapped": {Command: "/bin/sh", Args: []string{"-c", script}}})
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, StopGrace: 500 * time.Millisecond})
	rec := actorstest.Record(t, sup)
	_, ready := rec.WaitState(ctx, 0, "wrapped", messages.StateReady)
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	grandchild, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if !testkit.ProcessAlive(grandchild) {
		t.Fatalf("grandchild %d not running before the stop", grandchild)
	}

	mark := rec.Len()
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{})
	rec.WaitState(ctx, mark, "wrapped", messages.StateStopped)
	if testkit.ProcessAlive(ready.PID) {
		t.Errorf("server process %d alive after its server was stopped", ready.PID)
	}
	// The group got SIGKILL once the server was reaped; the grandchild dies
	// of it asynchronously.
	if err := testkit.WaitProcessGone(ctx, grandchild); err != nil {
		t.Errorf("grandchild: %v", err)
	}
}

// Tool calls run concurrently: 100 calls across 4 servers, each answered
// exactly once, none waiting for another.
func TestSession_ConcurrentCallsEachAnsweredOnce(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	names := []string{"s1", "s2", "s3", "s4"}
	servers := map[string]testkit.Server{}
	for _, n := range names {
		servers[n] = testkit.Example(bin, "--name", n)
	}
	testkit.WriteConfig(t, cfg, servers)
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true})
	rec := actorstest.Record(t, sup)
	for _, n := range names {
		rec.WaitState(ctx, 0, n, messages.StateReady)
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		answers = map[string]int{}
	)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := fmt.Sprintf("call-%d", i)
			res, err := sup.CallTool(ctx, names[i%4]+"__echo", map[string]any{"message": msg})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				answers["error: "+err.Error()]++
			case res.IsError:
				answers["isError"]++
			default:
				answers[testkit.Text(res)]++
			}
		}()
	}
	wg.Wait()
	for i := range 100 {
		if n := answers[fmt.Sprintf("call-%d", i)]; n != 1 {
			t.Errorf("call-%d answered %d times", i, n)
		}
	}
	if len(answers) != 100 {
		t.Errorf("answers = %v", answers)
	}
}

// A call is bounded by the server's callTimeout and by the caller's
// context; both are classified so the API can map them. The timeout is a
// second, not less: it bounds the quick call after them too, on the real
// clock, and 200 ms was once too little for a stdio round trip under the
// race detector with the whole suite running.
func TestSession_CallTimeoutAndCancellation(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `{"mcpServers": {"s": {"command": %q, "args": ["example-server"], "callTimeout": "1s"}}}`, bin), 0o600); err != nil {
		t.Fatal(err)
	}
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true})
	rec := actorstest.Record(t, sup)
	rec.WaitState(ctx, 0, "s", messages.StateReady)

	_, err := sup.CallTool(ctx, "s__sleep", map[string]any{"ms": 30000})
	if !errors.Is(err, actors.ErrCallTimeout) {
		t.Fatalf("slow call: err = %v, want ErrCallTimeout", err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = sup.CallTool(short, "s__sleep", map[string]any{"ms": 30000})
	if !errors.Is(err, actors.ErrCanceled) {
		t.Fatalf("cancelled call: err = %v, want ErrCanceled", err)
	}
	// The session is still fine after both.
	if res, err := sup.CallTool(ctx, "s__add", map[string]any{"a": 2, "b": 3}); err != nil || testkit.Text(res) != "5" {
		t.Fatalf("s__add = %v, %v", res, err)
	}
	// Unknown names are classified too.
	for name, want := range map[string]error{
		"nope__echo": actors.ErrUnknownServer, "s__nope": actors.ErrUnknownTool, "echo": actors.ErrBadToolName,
	} {
		if _, err := sup.CallTool(ctx, name, nil); !errors.Is(err, want) {
			t.Errorf("%s: err = %v, want %v", name, err, want)
		}
	}
}

// A stdio server runs in its configured working directory (relative to the
// config file) with the process environment plus its own env.
func TestSession_CwdAndEnvironment(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, ".mcp.json")
	body := fmt.Sprintf(`{"mcpServers": {"s": {"command": "/bin/sh", "args": ["-c", "pwd > where; exec %s example-server"],
		"cwd": "work", "env": {"OWN_SETTING": "from-config"}}}}`, bin)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	inherited := func() []string { return []string{"PATH=" + os.Getenv("PATH"), "INHERITED_SETTING=from-parent"} }
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Environ: inherited})
	rec := actorstest.Record(t, sup)
	rec.WaitState(ctx, 0, "s", messages.StateReady)
	where, err := os.ReadFile(filepath.Join(dir, "work", "where"))
	if err != nil || strings.TrimSpace(string(where)) != filepath.Join(dir, "work") {
		t.Fatalf("server ran in %q (%v), want %s", where, err, filepath.Join(dir, "work"))
	}
	for name, want := range map[string]string{"OWN_SETTING": "from-config", "INHERITED_SETTING": "from-parent"} {
		res, err := sup.CallTool(ctx, "s__getenv", map[string]any{"name": name})
		if err != nil || testkit.Text(res) != want {
			t.Errorf("%s = %v, %v; want %q", name, res, err, want)
		}
	}
}

// A server that exits during the handshake says so: its exit status and
// its telling stderr line (here its last) are in the failure event and in
// lastError. They
// used to read `connect: connection closed: calling "initialize": client
// is closing: EOF`, which names neither.
func TestSession_ExitDuringHandshakeNamesStatusAndStderr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		args         []string
		status, line string
	}{
		{"exit 7 while the handshake waits", []string{"--init-delay", "1h", "--exit-after", "50ms", "--exit-code", "7"}, "exit status 7", "exiting with status 7 after 50ms"},
		{"refused handshake", []string{"--init-fail"}, "exit status 1", "handshake refused (--init-fail)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			cfg := filepath.Join(t.TempDir(), ".mcp.json")
			testkit.WriteConfig(t, cfg, map[string]testkit.Server{"s": testkit.Example(bin, tt.args...)})
			sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff})
			rec := actorstest.Record(t, sup)
			_, failed := rec.WaitState(ctx, 0, "s", messages.StateFailed)
			for _, want := range []string{"exited during the MCP handshake", tt.status, tt.line} {
				if !strings.Contains(failed.Error, want) {
					t.Errorf("error = %q, want it to contain %q", failed.Error, want)
				}
			}
			if strings.Contains(failed.Error, "client is closing") {
				t.Errorf("error = %q, still the SDK's words", failed.Error)
			}
			if st := serverStatus(t, sup, "s"); st.LastError != failed.Error {
				t.Errorf("lastError = %q, want %q", st.LastError, failed.Error)
			}
		})
	}
}

// A server that fails to start shows the stderr line that says what is
// wrong, not its last one. Brave's search server, started without its
// key, writes "A Brave API key is required via --brave-api-key,
// BRAVE_API_KEY…", then "Invalid configuration", and exits 1: the reason
// shown everywhere was "Invalid configuration". The line keeps the key the
// server echoes redacted.
func TestSession_FailureShowsTheStderrLineThatSaysWhatIsWrong(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	const key = "BSA-not-a-real-key-0001"
	script := `echo "Starting Brave Search MCP Server" >&2
echo "A Brave API key is required via --brave-api-key, BRAVE_API_KEY environment variable (got $BRAVE_API_KEY)" >&2
echo "Invalid configuration" >&2
exit 1`
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{
		"brave": {Command: "/bin/sh", Args: []string{"-c", script}, Env: map[string]string{"BRAVE_API_KEY": key}},
	})
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff})
	rec := actorstest.Record(t, sup)
	_, failed := rec.WaitState(ctx, 0, "brave", messages.StateFailed)
	const want = "server process exited during the MCP handshake: exit status 1; stderr: " +
		"A Brave API key is required via --brave-api-key, BRAVE_API_KEY environment variable (got [redacted])"
	if failed.Error != want {
		t.Errorf("error = %q, want %q", failed.Error, want)
	}
	if st := serverStatus(t, sup, "brave"); st.LastError != want || strings.Contains(strings.Join(st.StderrTail, "\n"), key) {
		t.Errorf("status: lastError = %q, stderr tail %q; want %q and the key redacted", st.LastError, st.StderrTail, want)
	}
}

// A bare command is looked up on the PATH the server's env sets, as
// Claude Code and other Node-based clients look it up (and as `mcpvisor
// check` says); exec alone looked on mcpvisor's own PATH, so the server
// was "not found" here though it started directly.
func TestSession_BareCommandIsFoundOnThePATHItsEnvSets(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools")
	if err := os.Mkdir(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\nexec %s example-server\n", bin)
	if err := os.WriteFile(filepath.Join(tools, "env-path-only-server"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{
		"s": {Command: "env-path-only-server", Env: map[string]string{"PATH": tools + ":/usr/bin:/bin"}},
	})
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff})
	rec := actorstest.Record(t, sup)
	rec.WaitState(ctx, 0, "s", messages.StateReady)
}

// inheritEnv limits what a real stdio server inherits from mcpvisor's
// environment: the Supervisor's default (here the base only) applies to an
// entry that does not say, an entry's own setting wins, and its env is
// always added.
func TestSession_InheritEnvLimitsTheEnvironment(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	body := fmt.Sprintf(`{"mcpServers": {
		"dflt":   {"command": %[1]q, "args": ["example-server"], "env": {"OWN": "own"}},
		"all":    {"command": %[1]q, "args": ["example-server"], "env": {"OWN": "own"}, "inheritEnv": true},
		"listed": {"command": %[1]q, "args": ["example-server"], "env": {"OWN": "own"}, "inheritEnv": ["NODE_*"]}}}`, bin)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	inherited := func() []string {
		return []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/inherit-test", "CLOUD_SECRET=from-parent", "NODE_FLAG=node-flag"}
	}
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Environ: inherited,
		InheritEnv: &messages.EnvPolicy{}})
	rec := actorstest.Record(t, sup)
	for _, s := range []string{"dflt", "all", "listed"} {
		rec.WaitState(ctx, 0, s, messages.StateReady)
	}
	want := map[string]map[string]string{
		"dflt":   {"OWN": "own", "HOME": "/home/inherit-test", "CLOUD_SECRET": "", "NODE_FLAG": ""},
		"all":    {"OWN": "own", "HOME": "/home/inherit-test", "CLOUD_SECRET": "from-parent", "NODE_FLAG": "node-flag"},
		"listed": {"OWN": "own", "HOME": "/home/inherit-test", "CLOUD_SECRET": "", "NODE_FLAG": "node-flag"},
	}
	for server, vars := range want {
		for name, value := range vars {
			res, err := sup.CallTool(ctx, server+"__getenv", map[string]any{"name": name})
			if err != nil || testkit.Text(res) != value {
				t.Errorf("%s: %s = %v, %v; want %q", server, name, res, err, value)
			}
		}
	}
}

// Credentials written literally in a server's args are redacted from
// what mcpvisor shows of it, here its stderr tail: a bearer token, a
// --api-key value and a URL's query and path. They used to show.
func TestSession_CredentialsInArgsAreRedacted(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	const bearer, apiKey, query, path = "tok-bearer-1234", "key-value-5678", "qv-91011", "/hooks/ph-1213"
	script := fmt.Sprintf(`echo "auth Bearer %s key $2 url $3" >&2; echo "query %s path %s" >&2; exec %s example-server`, bearer, query, path, bin)
	body := fmt.Sprintf(`{"mcpServers": {"s": {"command": "/bin/sh", "args": ["-c", %q, "sh", "--api-key", %q, "https://h.example%s?k=%s"]}}}`,
		script, apiKey, path, query)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true})
	rec := actorstest.Record(t, sup)
	rec.WaitState(ctx, 0, "s", messages.StateReady)
	tail := strings.Join(serverStatus(t, sup, "s").StderrTail, "\n")
	if !strings.Contains(tail, "auth Bearer [redacted] key [redacted] url") || !strings.Contains(tail, "query [redacted] path [redacted]") {
		t.Fatalf("stderr tail %q does not show the redacted line", tail)
	}
	for _, secret := range []string{bearer, apiKey, query, path} {
		if strings.Contains(tail, secret) {
			t.Errorf("stderr tail %q shows %q", tail, secret)
		}
	}
}
