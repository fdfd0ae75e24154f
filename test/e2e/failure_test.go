package e2e_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// A failed fleet actor (a malformed injected message) stops every server
// process by itself, before anyone calls Close, and Close still returns.
func TestFailure_ReconcilerPanicStopsTheProcesses(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin)})
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true})
	rec := actorstest.Record(t, sup)
	_, ready := rec.WaitState(ctx, 0, "alpha", messages.StateReady)

	actorstest.Send(t, sup, actorstest.Fleet, (*messages.ServerFailed)(nil))
	rec.WaitFor(ctx, 0, "supervisor.failed", func(e messages.Event) bool { _, ok := e.(*messages.SupervisorFailed); return ok })
	if err := testkit.WaitProcessGone(ctx, ready.PID); err != nil {
		t.Fatalf("server process %d after the failure: %v", ready.PID, err)
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(sup.Err(), actors.ErrFailed) {
		t.Fatalf("Err = %v, want ErrFailed", sup.Err())
	}
}
