package actors_test

import (
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// A live field (config.LiveChanges) applies to the running session
// without a restart: a changed callTimeout bounds the next call on the
// same session. The session used to keep the timeout it was spawned with.
func TestFleetActor_CallTimeoutAppliesLive(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	calls := mClock.Trap().AfterFunc("session", "call")
	defer calls.Close()
	f := newFleet(t, echoServers("s"))
	cfg := configFor(t, "s")
	writeConfig(t, cfg, map[string]any{"s": map[string]any{"command": "in-memory", "callTimeout": "5s"}})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	_, ready := rec.WaitState(ctx, 0, "s", messages.StateReady)

	call := func(want time.Duration) {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			_, err := sup.CallTool(ctx, "s__echo", map[string]any{})
			done <- err
		}()
		c := calls.MustWait(ctx)
		if c.Duration != want {
			t.Errorf("call timer armed for %s, want %s", c.Duration, want)
		}
		c.MustRelease(ctx)
		if err := <-done; err != nil {
			t.Fatalf("call: %v", err)
		}
	}
	call(5 * time.Second)

	writeConfig(t, cfg, map[string]any{"s": map[string]any{"command": "in-memory", "callTimeout": "9s"}})
	reload(t, ctx, sup, rec)
	if _, _, err := sup.Resync(ctx, true); err != nil { // a barrier through the fleet actor
		t.Fatal(err)
	}
	call(9 * time.Second)
	if st := sup.Status().Servers[0]; st.Session != ready.Session {
		t.Fatalf("session %d → %d: a live change restarted the server", ready.Session, st.Session)
	}
}
