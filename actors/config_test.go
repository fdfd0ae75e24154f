package actors_test

import (
	"os"
	"strings"
	"testing"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// A config file that stops parsing keeps the servers last parsed from it
// running, and says so; deleting the file does stop them.
func TestConfig_BadSaveKeepsTheLastGoodServers(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("s"))
	cfg := configFor(t, "s")
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	rec.WaitState(ctx, 0, "s", messages.StateReady)

	for _, broken := range []string{`{"mcpServers": {"s": {"command": `, ``} {
		if err := os.WriteFile(cfg, []byte(broken), 0o600); err != nil {
			t.Fatal(err)
		}
		mark := rec.Len()
		sup.ActorSystem().Root.Send(sup.PIDs().Config, &messages.FileChanged{})
		_, ev := rec.WaitFor(ctx, mark, "config loaded", func(e messages.Event) bool { _, ok := e.(*messages.ConfigLoaded); return ok })
		loaded := ev.(*messages.ConfigLoaded)
		if loaded.Changed || !anyDiagnostic(loaded.Diagnostics, "keeping") {
			t.Fatalf("after saving %q: %+v, want unchanged with a diagnostic saying the servers are kept", broken, loaded)
		}
		if _, _, err := sup.Resync(ctx, true); err != nil { // a barrier through the reconciler
			t.Fatal(err)
		}
		if got := transitions(rec, mark, "s"); len(got) != 0 {
			t.Fatalf("s changed state after a bad save: %v", got)
		}
		if st := sup.Status(); len(st.ConfigErrors) == 0 {
			t.Fatal("status shows no config error after a bad save")
		}
	}

	mark := rec.Len()
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	sup.ActorSystem().Root.Send(sup.PIDs().Config, &messages.FileChanged{})
	rec.WaitState(ctx, mark, "s", messages.StateStopped)
}

func anyDiagnostic(ds []messages.Diagnostic, substr string) bool {
	for _, d := range ds {
		if strings.Contains(d.Message, substr) {
			return true
		}
	}
	return false
}
