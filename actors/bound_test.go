package actors_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// A failure with a huge error text (a server's 8 KiB message) still
// gives a warning, a last error and events of at most MaxTextBytes: the
// warning used to add its own prefix on top of the bounded error.
func TestFleetActor_WarningsAreBounded(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("s"))
	cfg := configFor(t, "s")
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	rec.WaitState(ctx, 0, "s", messages.StateReady)

	f.breakDials("s", errors.New(strings.Repeat("x", 8<<10)))
	mark := rec.Len()
	writeConfig(t, cfg, map[string]any{"s": map[string]any{"command": "in-memory", "args": []string{"--v2"}}})
	reload(t, ctx, sup, rec)
	rec.WaitFor(ctx, mark, "kept old session", func(e messages.Event) bool {
		sc, ok := e.(*messages.ServerStateChanged)
		return ok && sc.Server == "s" && sc.Error != ""
	})
	st := sup.Status().Servers[0]
	if st.Warning == "" || len(st.Warning) > redact.MaxTextBytes {
		t.Fatalf("warning is %d bytes, want 1 to %d", len(st.Warning), redact.MaxTextBytes)
	}
	for _, e := range rec.Since(mark) {
		if sc, ok := e.(*messages.ServerStateChanged); ok && (len(sc.Error) > redact.MaxTextBytes || len(sc.Reason) > redact.MaxTextBytes) {
			t.Fatalf("event %+v carries more than %d bytes of text", sc, redact.MaxTextBytes)
		}
	}
}
