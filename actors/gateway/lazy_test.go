package gateway_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// A lazy server's tools are listed through the gateway while it is idle
// (from the one start that listed them), and a call through the gateway
// starts it, waits for it and gets the server's answer.
func TestGateway_LazyServerListedWhileIdleStartedByACall(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := startRelayRig(t, ctx, map[string]any{"autostart": "lazy"}, nil)
	r.rec.WaitState(ctx, 0, "demo", messages.StateIdle)
	primed, _ := r.rec.WaitState(ctx, 0, "demo", messages.StateStopping)
	r.rec.WaitState(ctx, primed, "demo", messages.StateIdle)

	cs := r.connect(ctx, "", &mcp.ClientOptions{}, demoTools()...)
	if st := r.sup.Status().Servers[0]; st.State != messages.StateIdle || st.PID != 0 {
		t.Fatalf("status while listed = %+v, want idle with no process", st)
	}
	mark := r.rec.Len()
	if got := call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"message": "hi"}}); got != "hi" {
		t.Fatalf("echo through the gateway = %q, want hi", got)
	}
	// Granted after the ready event was published: it is in the journal.
	r.rec.WaitState(ctx, mark, "demo", messages.StateReady)
	want := []string{"idle→starting (used)", "starting→ready (connected)"}
	var got []string
	for _, e := range r.rec.Since(mark) {
		if sc, ok := e.(*messages.ServerStateChanged); ok {
			got = append(got, string(sc.From)+"→"+string(sc.To)+" ("+sc.Reason+")")
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("transitions of the call (-want +got):\n%s", diff)
	}
}
