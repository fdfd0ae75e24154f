package e2e_test

import (
	"path/filepath"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// A ServerFailed injected straight into the fleet actor marks a ready
// server failed; with the default restart policy it is retried and
// becomes ready again on a new session and process.
func TestInject_ServerFailedRestartsServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin)})
	sup := startSupervisor(t, actors.Options{
		ConfigPaths:  []string{cfg},
		DisableWatch: true,
		Backoff:      reconciler.Backoff{Initial: 1, Max: 1}, // retry at once
	})
	rec := actorstest.Record(t, sup)
	_, ready := rec.WaitState(ctx, 0, "alpha", messages.StateReady)

	mark := rec.Len()
	actorstest.Send(t, sup, actorstest.Fleet, &messages.ServerFailed{Server: "alpha", Session: ready.Session, Error: "injected"})
	_, failed := rec.WaitState(ctx, mark, "alpha", messages.StateFailed)
	if failed.Error != "injected" || failed.Attempt != 1 {
		t.Fatalf("failed event = %+v, want error %q attempt 1", failed, "injected")
	}
	_, again := rec.WaitState(ctx, mark, "alpha", messages.StateReady)
	if again.Session == ready.Session || again.PID == ready.PID {
		t.Fatalf("recovered on session %d pid %d, want a new session and process (old %d, %d)", again.Session, again.PID, ready.Session, ready.PID)
	}
	if st := serverStatus(t, sup, "alpha"); st.Restarts != 1 {
		t.Fatalf("restarts = %d, want 1", st.Restarts)
	}
	// The failed session is stopped in the background while the retry
	// starts; once Close returns, neither process may be left.
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{ready.PID, again.PID} {
		if testkit.ProcessAlive(pid) {
			t.Errorf("process %d alive after Close", pid)
		}
	}
}

// A stale ServerFailed (for a session that is no longer current) is
// dropped: the server stays ready.
func TestInject_StaleServerFailedIsDropped(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin)})
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true})
	rec := actorstest.Record(t, sup)
	_, ready := rec.WaitState(ctx, 0, "alpha", messages.StateReady)

	mark := rec.Len()
	actorstest.Send(t, sup, actorstest.Fleet, &messages.ServerFailed{Server: "alpha", Session: ready.Session + 100, Error: "stale"})
	// A resync is a barrier: it goes through the same fleet actor's
	// mailbox after the stale report.
	if _, _, err := sup.Resync(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got := rec.StateChanges(mark, "alpha"); len(got) != 0 {
		t.Fatalf("alpha state changes after a stale ServerFailed: %v", got)
	}
}

// A ResyncRequested injected into the config actor makes it read the
// config again, even though no file changed.
func TestInject_ResyncRequestedRereadsConfig(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin)})
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true})
	rec := actorstest.Record(t, sup)
	rec.WaitState(ctx, 0, "alpha", messages.StateReady)

	// With the watcher off, only an injected trigger can make it notice.
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin), "beta": testkit.Example(bin)})
	mark := rec.Len()
	actorstest.Send(t, sup, actorstest.Config, &messages.ResyncRequested{ID: "injected"})
	rec.WaitFor(ctx, mark, "config loaded", func(e messages.Event) bool {
		cl, ok := e.(*messages.ConfigLoaded)
		return ok && cl.Changed && cl.Servers == 2
	})
	rec.WaitState(ctx, mark, "beta", messages.StateReady)
	rec.WaitFor(ctx, mark, "resync completed", func(e messages.Event) bool {
		rc, ok := e.(*messages.ResyncCompleted)
		return ok && rc.ID == "injected"
	})
}
