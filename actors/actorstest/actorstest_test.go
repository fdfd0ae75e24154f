package actorstest_test

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// startEmpty starts a Supervisor on a config file with no servers, the
// watcher off.
func startEmpty(t *testing.T) *actors.Supervisor {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, CacheDir: "-", OAuthDir: "-", Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sup.Close() })
	return sup
}

// A Recorder sees every event from the first one, in order, and finds the
// ones a test waits for from an index on, recorded already or to come.
func TestRecorder_WaitsFromAnIndex(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	j := journal.New(journal.Options{})
	j.Publish(&messages.ConfigLoaded{Generation: 1})
	rec := actorstest.Record(t, j)
	j.Publish(&messages.ServerStateChanged{Server: "a", From: messages.StateStarting, To: messages.StateReady})
	j.Publish(&messages.ServerStateChanged{Server: "b", From: messages.StateStarting, To: messages.StateReady})
	if i, ev := rec.WaitState(ctx, 0, "b", messages.StateReady); i != 2 || ev.Server != "b" {
		t.Fatalf("WaitState = %d, %+v; want b's at index 2", i, ev)
	}
	i, _ := rec.WaitFor(ctx, 0, "the first config", func(e messages.Event) bool { _, ok := e.(*messages.ConfigLoaded); return ok })
	if i != 0 {
		t.Fatalf("the event before Record is at %d, want 0", i)
	}
	if got := rec.StateChanges(0, "a"); len(got) != 1 || got[0] != "starting→ready" {
		t.Fatalf("StateChanges = %v", got)
	}
}

// Barrier returns once an actor handled every message sent to it before:
// the fleet actor has applied every injected desired state (each publishes
// its plan while it is handled) by the time it returns, with no timeout.
func TestBarrier_AfterEveryEarlierMessage(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	sup := startEmpty(t)
	rec := actorstest.Record(t, sup)
	rec.WaitFor(ctx, 0, "the first plan", func(e messages.Event) bool { _, ok := e.(*messages.PlanApplied); return ok })
	const last = 100
	for gen := uint64(2); gen <= last; gen++ {
		actorstest.Send(t, sup, actorstest.Fleet, &messages.DesiredState{Generation: gen})
	}
	actorstest.Barrier(ctx, t, sup, actorstest.Fleet)
	if st := sup.Status(); st.ObservedGeneration != last {
		t.Fatalf("observed generation %d at the barrier, want %d", st.ObservedGeneration, last)
	}
}

// OnPublish sees each event as it is published, until stopped.
func TestOnPublish_SeesEventsUntilStopped(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	sup := startEmpty(t)
	rec := actorstest.Record(t, sup)
	rec.WaitFor(ctx, 0, "the first plan", func(e messages.Event) bool { _, ok := e.(*messages.PlanApplied); return ok })
	seen := make(chan uint64, 16)
	stop := actorstest.OnPublish(t, sup, func(env *messages.Envelope) {
		if pa, ok := env.Event.(*messages.PlanApplied); ok {
			seen <- pa.Generation
		}
	})
	actorstest.Send(t, sup, actorstest.Fleet, &messages.DesiredState{Generation: 7})
	select {
	case gen := <-seen:
		if gen != 7 {
			t.Fatalf("saw the plan of generation %d, want 7", gen)
		}
	case <-ctx.Done():
		t.Fatal("the injected plan was never published")
	}
	stop()
	actorstest.Send(t, sup, actorstest.Fleet, &messages.DesiredState{Generation: 8})
	actorstest.Barrier(ctx, t, sup, actorstest.Fleet)
	select {
	case gen := <-seen:
		t.Fatalf("saw generation %d after stop", gen)
	default:
	}
}

// Context ends before the test binary's own deadline.
func TestContext_IsBounded(t *testing.T) {
	t.Parallel()
	dl, ok := actorstest.Context(t).Deadline()
	if !ok {
		t.Fatal("no deadline")
	}
	if td, ok := t.Deadline(); ok && !dl.Before(td) {
		t.Fatalf("deadline %v not before the test's %v", dl, td)
	}
}
