package conformance_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// When an event about a server is published, Status, Tools and call
// routing already show what it announces: an embedder that follows the
// events and reacts to "ready" with a CallTool, or to tools.changed with
// Tools(), must not read the state from before the event (ErrNotReady, or
// the previous tool list with no further event to correct it).
//
// The check runs inside the event stream's publish, that is at the exact
// moment the event becomes visible to any subscriber.
func TestEvents_ViewReflectsEventWhenPublished(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	sup, rec, _ := startSupervisor(t, map[string]testkit.Server{"thinking": thinkingStdio(0)})

	type sample struct {
		event messages.Event
		state messages.State // the server's state in Status at publish time
		tools []string       // its exposed tools in Tools() at publish time
	}
	var (
		mu      sync.Mutex
		samples []sample
		once    sync.Once
		done    = make(chan struct{}) // closed once the tools were sampled
	)
	stop := actorstest.OnPublish(t, sup, func(env *messages.Envelope) {
		switch e := env.Event.(type) {
		case *messages.ServerStateChanged, *messages.ToolsChanged:
			s := sample{event: e, tools: exposedTools(sup, "thinking")}
			for _, st := range sup.Status().Servers {
				if st.Name == "thinking" {
					s.state = st.State
				}
			}
			mu.Lock()
			samples = append(samples, s)
			mu.Unlock()
			if tc, ok := e.(*messages.ToolsChanged); ok && len(tc.Tools) > 0 {
				once.Do(func() { close(done) })
			}
		}
	})
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("thinking's tools were never published: %v\nevents:\n%s", ctx.Err(), rec.Dump())
	}
	stop()

	mu.Lock()
	defer mu.Unlock()
	for _, s := range samples {
		switch e := s.event.(type) {
		case *messages.ServerStateChanged:
			if s.state != e.To {
				t.Errorf("at publish of %s %s→%s, Status showed %q", e.Server, e.From, e.To, s.state)
			}
		case *messages.ToolsChanged:
			if want := names(e.Tools); !slices.Equal(s.tools, want) {
				t.Errorf("at publish of tools.changed for %s (%v), Tools() showed %v", e.Server, want, s.tools)
			}
		}
	}
	if len(samples) < 2 {
		t.Fatalf("sampled %d events, want at least ready and tools.changed", len(samples))
	}
}
