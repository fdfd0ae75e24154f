package daemon_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// serverRow returns name's row of `status --json`.
func serverRow(t *testing.T, r result, name string) messages.ServerStatus {
	t.Helper()
	var st messages.Status
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.stdout)
	}
	for _, s := range st.Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no %s in %s", name, r.stdout)
	return messages.ServerStatus{}
}

// The operator's loop: start the daemon, look at it with status, tools,
// call and events, edit the config, see only the change applied, resync,
// and stop it with Ctrl-C: exit 0, no server process left, and the event
// follower told that the daemon went away.
func TestDaemon_EditIsSeenThroughStatusAndEvents(t *testing.T) {
	t.Parallel()
	ctx := actorstest.ContextTimeout(t, daemonTimeout)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin, "--name", "alpha")})
	d, addr := daemon(ctx, t, nil, cfg)
	env := []string{"MCPVISOR_ADDR=" + addr}

	events := start(t, env, "events", "--since", "0", "--json")
	events.waitState(ctx, "alpha", "ready")

	alpha := serverRow(t, run(ctx, t, env, "status", "--json").ok(t), "alpha")
	if alpha.State != messages.StateReady || alpha.PID == 0 || alpha.Tools != 7 {
		t.Fatalf("alpha = %+v, want ready with a pid and 7 tools", alpha)
	}
	table := run(ctx, t, env, "status").ok(t).stdout
	if !strings.HasPrefix(table, "NAME   PREFIX  TRANSPORT  STATE  TOOLS  RESTARTS  AGE  LAST ERROR\nalpha  alpha   stdio      ready  7      0") {
		t.Fatalf("status table:\n%s", table)
	}
	if out := run(ctx, t, env, "tools").ok(t).stdout; !strings.Contains(out, "alpha__echo    alpha   Returns the message unchanged.") {
		t.Fatalf("tools:\n%s", out)
	}
	if out := run(ctx, t, env, "call", "alpha__echo", `{"message": "hello from the CLI"}`).ok(t).stdout; out != "hello from the CLI\n" {
		t.Fatalf("call printed %q", out)
	}

	// Add beta: it starts, alpha keeps its process.
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{
		"alpha": testkit.Example(bin, "--name", "alpha"),
		"beta":  testkit.Example(bin, "--name", "beta", "--extra-tools", "2"),
	})
	events.waitState(ctx, "beta", "ready")
	st := run(ctx, t, env, "status", "--json").ok(t)
	beta := serverRow(t, st, "beta")
	if got := serverRow(t, st, "alpha"); got.PID != alpha.PID || got.State != messages.StateReady {
		t.Fatalf("alpha after adding beta = %+v, want the same process %d, ready", got, alpha.PID)
	}
	if beta.State != messages.StateReady || beta.Tools != 9 {
		t.Fatalf("beta = %+v, want ready with 9 tools", beta)
	}

	// A resync keeps both.
	out := run(ctx, t, env, "resync").ok(t).stdout
	if !regexp.MustCompile(`(?m)^  alpha  keep  unchanged$`).MatchString(out) || !regexp.MustCompile(`(?m)^  beta   keep  unchanged$`).MatchString(out) {
		t.Fatalf("resync:\n%s", out)
	}

	// Ctrl-C: exit 0, the servers are gone, the follower sees the end.
	if code := d.interrupt(ctx); code != 0 {
		t.Fatalf("run exit %d after SIGINT, want 0\nstderr:\n%s", code, d.stderr.String())
	}
	if !strings.Contains(d.stdout.String(), "mcpvisor: stopping every server") {
		t.Fatalf("run output:\n%s", d.stdout.String())
	}
	for _, pid := range []int{alpha.PID, beta.PID} {
		if testkit.ProcessAlive(pid) {
			t.Errorf("server process %d alive after the daemon exited", pid)
		}
	}
	if code := events.exitCode(ctx); code != 3 {
		t.Fatalf("events exit %d after the daemon stopped, want 3\nstderr:\n%s", code, events.stderr.String())
	}
	if !strings.Contains(events.stderr.String(), "ended the stream: it stopped") {
		t.Fatalf("events stderr: %s", events.stderr.String())
	}
	if r := run(ctx, t, env, "status"); r.code != 3 || !strings.Contains(r.stderr, "is `mcpvisor run` running?") {
		t.Fatalf("status after the daemon stopped: exit %d %s", r.code, r.stderr)
	}
}
