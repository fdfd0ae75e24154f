package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// The case other agents get wrong: a server whose binary is missing at
// startup fails; the binary appears; nobody touches the config; a resync
// brings it up and restarts nothing else.
func TestReconcile_ResyncStartsAServerWhoseBinaryAppeared(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	late := filepath.Join(dir, "bin", "late-server")
	cfg := filepath.Join(dir, ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{
		"late":   {Command: late, Args: []string{"example-server"}},
		"steady": testkit.Example(bin),
	})
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, Backoff: slowBackoff})
	rec := actorstest.Record(t, sup)
	_, failed := rec.WaitState(ctx, 0, "late", messages.StateFailed)
	if !strings.Contains(failed.Error, "no such file or directory") {
		t.Fatalf("missing binary error = %q", failed.Error)
	}
	_, steady := rec.WaitState(ctx, 0, "steady", messages.StateReady)

	if err := os.MkdirAll(filepath.Dir(late), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, late); err != nil {
		t.Fatal(err)
	}
	mark := rec.Len()
	plan, done, err := sup.Resync(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	wantPlan := []messages.PlanStep{
		{Server: "late", Action: messages.ActionRetry, Reason: "failed: retry"},
		{Server: "steady", Action: messages.ActionKeep, Reason: "unchanged"},
	}
	if diff := cmp.Diff(wantPlan, plan.Steps); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]messages.ServerOutcome{{Server: "late", State: messages.StateReady}}, done.Outcomes); diff != "" {
		t.Fatalf("outcome (-want +got):\n%s", diff)
	}
	if got := rec.StateChanges(mark, "steady"); len(got) != 0 {
		t.Fatalf("steady changed state: %v", got)
	}
	if st := serverStatus(t, sup, "steady"); st.PID != steady.PID {
		t.Fatalf("steady's pid %d, want the untouched %d", st.PID, steady.PID)
	}
}

// A crash loop stops retrying by itself and says so; a resync revives it.
func TestReconcile_CrashLoopThenResync(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"flaky": testkit.Example(bin, "--exit-after", "50ms")})
	sup := startSupervisor(t, actors.Options{
		ConfigPaths: []string{cfg}, DisableWatch: true,
		Backoff:   reconciler.Backoff{Initial: 10 * time.Millisecond, Max: 10 * time.Millisecond},
		CrashLoop: reconciler.CrashLoop{Failures: 3, Window: time.Minute},
	})
	rec := actorstest.Record(t, sup)
	_, looped := rec.WaitFor(ctx, 0, "crash loop", func(e messages.Event) bool {
		sc, ok := e.(*messages.ServerStateChanged)
		return ok && sc.To == messages.StateFailed && strings.Contains(sc.Reason, "crash loop")
	})
	if sc := looped.(*messages.ServerStateChanged); !strings.Contains(sc.Reason, "3 failures in 1m0s") || !sc.NextRetry.IsZero() {
		t.Fatalf("crash-loop event = %+v, want 3 failures named and no retry time", sc)
	}
	if st := serverStatus(t, sup, "flaky"); st.State != messages.StateFailed || !st.NextRetry.IsZero() {
		t.Fatalf("status = %+v", st)
	}
	mark := rec.Len()
	if _, _, err := sup.Resync(ctx, false); err != nil {
		t.Fatal(err)
	}
	rec.WaitState(ctx, mark, "flaky", messages.StateReady)
}

// A rotated secret behind ${VAR} restarts exactly the server that uses
// it, which then sees the new value.
func TestReconcile_RotatedSecretRestartsOnlyThatServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	a, b := testkit.Example(bin), testkit.Example(bin)
	a.Env = map[string]string{"API_TOKEN": "${TOKEN_A}"}
	b.Env = map[string]string{"API_TOKEN": "${TOKEN_B}"}
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"a": a, "b": b})
	var mu sync.Mutex
	vars := map[string]string{"TOKEN_A": "first-secret-a", "TOKEN_B": "first-secret-b"}
	lookup := func(k string) (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		v, ok := vars[k]
		return v, ok
	}
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, LookupEnv: lookup})
	rec := actorstest.Record(t, sup)
	rec.WaitState(ctx, 0, "a", messages.StateReady)
	_, readyB := rec.WaitState(ctx, 0, "b", messages.StateReady)

	mu.Lock()
	vars["TOKEN_A"] = "rotated-secret-a"
	mu.Unlock()
	mark := rec.Len()
	plan, done, err := sup.Resync(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	wantPlan := []messages.PlanStep{
		{Server: "a", Action: messages.ActionRestart, Reason: "changed: env"},
		{Server: "b", Action: messages.ActionKeep, Reason: "unchanged"},
	}
	if diff := cmp.Diff(wantPlan, plan.Steps); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	if done.Outcomes[0].State != messages.StateReady {
		t.Fatalf("outcome = %+v", done.Outcomes)
	}
	if got := rec.StateChanges(mark, "b"); len(got) != 0 {
		t.Fatalf("b changed state: %v", got)
	}
	if st := serverStatus(t, sup, "b"); st.PID != readyB.PID {
		t.Fatalf("b's pid changed: %d → %d", readyB.PID, st.PID)
	}
	res, err := sup.CallTool(ctx, "a__getenv", map[string]any{"name": "API_TOKEN"})
	if err != nil || testkit.Text(res) != "rotated-secret-a" {
		t.Fatalf("a sees API_TOKEN = %v, %v; want the rotated value", res, err)
	}
	// The secret itself appears in no event.
	for _, e := range rec.Since(0) {
		data, _ := json.Marshal(e)
		if strings.Contains(string(data), "secret-a") || strings.Contains(string(data), "secret-b") {
			t.Fatalf("event carries a secret: %s", data)
		}
	}
}

// A change whose new config cannot start keeps the old session serving,
// with a warning in status.
func TestReconcile_BrokenChangeKeepsServing(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"s": testkit.Example(bin)})
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}})
	rec := actorstest.Record(t, sup)
	_, ready := rec.WaitState(ctx, 0, "s", messages.StateReady)

	mark := rec.Len()
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"s": {Command: "/nonexistent/mcp-server"}})
	rec.WaitFor(ctx, mark, "change failed", func(e messages.Event) bool {
		sc, ok := e.(*messages.ServerStateChanged)
		return ok && sc.Server == "s" && sc.Error != "" && sc.To == messages.StateReady
	})
	st := serverStatus(t, sup, "s")
	if st.State != messages.StateReady || st.PID != ready.PID || !strings.Contains(st.Warning, "no such file") {
		t.Fatalf("status = %+v, want the old session ready with a warning", st)
	}
	if res, err := sup.CallTool(ctx, "s__pid", map[string]any{}); err != nil || testkit.Text(res) == "" {
		t.Fatalf("call on the kept session = %v, %v", res, err)
	}
}
