package e2e_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

func startSupervisor(t *testing.T, opts actors.Options) *actors.Supervisor {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = zaptest.NewLogger(t)
	}
	if opts.Debounce == 0 {
		opts.Debounce = 10 * time.Millisecond
	}
	if opts.StopGrace == 0 {
		opts.StopGrace = 2 * time.Second
	}
	sup, err := actors.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return sup
}

func serverStatus(t *testing.T, sup *actors.Supervisor, name string) messages.ServerStatus {
	t.Helper()
	for _, s := range sup.Status().Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in status %+v", name, sup.Status())
	return messages.ServerStatus{}
}

// The thin path, all real: a config edit goes through fsnotify, the
// watcher, the config actor and the fleet actor to a session actor over a
// stdio subprocess, and its tools become visible.
func TestThinPath_EditsReconcileOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin, "--name", "alpha")})

	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}})
	rec := actorstest.Record(t, sup)

	// The first server's tools appear.
	i, _ := rec.WaitFor(ctx, 0, "alpha tools", func(e messages.Event) bool {
		tc, ok := e.(*messages.ToolsChanged)
		return ok && tc.Server == "alpha" && slices.Contains(tc.Added, "echo")
	})
	alpha := serverStatus(t, sup, "alpha")
	if alpha.State != messages.StateReady || alpha.PID == 0 || alpha.Tools < 7 {
		t.Fatalf("alpha after start = %+v, want ready with a pid and its 7 tools", alpha)
	}
	// Status shows a ready server's live stderr tail.
	if len(alpha.StderrTail) == 0 || !strings.Contains(alpha.StderrTail[0], "starting") {
		t.Fatalf("alpha's stderr tail = %q, want its start-up line", alpha.StderrTail)
	}
	res, err := sup.CallTool(ctx, "alpha__echo", map[string]any{"message": "hi"})
	if err != nil || res.IsError {
		t.Fatalf("alpha__echo = %+v, %v", res, err)
	}

	// Adding a second server starts it and leaves the first alone.
	mark := rec.Len()
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{
		"alpha": testkit.Example(bin, "--name", "alpha"),
		"beta":  testkit.Example(bin, "--name", "beta"),
	})
	_, ready := rec.WaitState(ctx, mark, "beta", messages.StateReady)
	betaPID := ready.PID
	if got := rec.StateChanges(i, "alpha"); len(got) != 0 {
		t.Fatalf("alpha changed state on an edit that did not touch it: %v", got)
	}
	if got := serverStatus(t, sup, "alpha"); got.PID != alpha.PID || got.Session != alpha.Session {
		t.Fatalf("alpha pid/session = %d/%d, want the untouched %d/%d", got.PID, got.Session, alpha.PID, alpha.Session)
	}

	// Removing it stops it: its process is gone once it is reported stopped.
	mark = rec.Len()
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin, "--name", "alpha")})
	rec.WaitState(ctx, mark, "beta", messages.StateStopped)
	if testkit.ProcessAlive(betaPID) {
		t.Fatalf("beta's process %d is alive after beta was stopped", betaPID)
	}
	if got := serverStatus(t, sup, "alpha"); got.PID != alpha.PID {
		t.Fatalf("alpha pid = %d after removing beta, want %d", got.PID, alpha.PID)
	}

	// Deleting the file removes every server.
	mark = rec.Len()
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	rec.WaitState(ctx, mark, "alpha", messages.StateStopped)
	if st := sup.Status(); len(st.Servers) != 0 {
		t.Fatalf("servers after the config was deleted = %+v, want none", st.Servers)
	}
	if testkit.ProcessAlive(alpha.PID) {
		t.Fatalf("alpha's process %d is alive after the config was deleted", alpha.PID)
	}
}

// Closing the supervisor stops every server process; the package's
// TestMain checks for leaked goroutines.
func TestShutdown_StopsEveryProcess(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	servers := map[string]testkit.Server{}
	for _, n := range []string{"a", "b", "c"} {
		servers[n] = testkit.Example(bin, "--name", n)
	}
	servers["hung"] = testkit.Example(bin, "--init-hang")
	testkit.WriteConfig(t, cfg, servers)

	sup, err := actors.Start(actors.Options{ConfigPaths: []string{cfg}, Logger: zaptest.NewLogger(t), StopGrace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rec := actorstest.Record(t, sup)
	var pids []int
	for _, n := range []string{"a", "b", "c"} {
		_, ev := rec.WaitState(ctx, 0, n, messages.StateReady)
		pids = append(pids, ev.PID)
	}
	if err := sup.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := sup.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	for _, pid := range pids {
		if testkit.ProcessAlive(pid) {
			t.Errorf("server process %d alive after Close", pid)
		}
	}
	if _, err := sup.CallTool(ctx, "a__echo", nil); err == nil {
		t.Error("CallTool after Close succeeded")
	}
}
