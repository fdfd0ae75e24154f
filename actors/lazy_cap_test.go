package actors_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// One caller could start every lazy server of the config at once, a call
// each (item 9 of issue 23). With MaxLazyStarts 2, three calls to three
// idle lazy servers start two; the third server waits, pending, and its
// call waits with it, until a start ends; then it starts, and every call
// succeeds: waiting its turn is no failure.
func TestLazy_StartsAreCapped(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	names := []string{"a", "b", "c"}
	f := newFleet(t, echoServers(names...))
	// Once primed, each start's dial says it began and waits for its gate.
	var gated atomic.Bool
	dialing := make(chan string, len(names))
	gates := map[string]chan struct{}{}
	opens := map[string]func(){}
	for _, n := range names {
		gates[n] = make(chan struct{})
		opens[n] = sync.OnceFunc(func() { close(gates[n]) })
	}
	dial := func(spec messages.ServerSpec) (mcp.Transport, error) {
		if gated.Load() {
			dialing <- spec.Name
			<-gates[spec.Name]
		}
		return f.dial(spec)
	}
	cfg := configFor(t)
	servers := map[string]any{}
	for _, n := range names {
		servers[n] = map[string]any{"command": "in-memory", "autostart": "lazy"}
	}
	writeConfig(t, cfg, servers)
	sup, rec := startWithDial(t, mClock, dial, actors.Options{ConfigPaths: []string{cfg}, MaxLazyStarts: 2})
	t.Cleanup(func() { // before Close: no dial is left waiting
		for _, open := range opens {
			open()
		}
	})
	for _, n := range names {
		primed(t, rec, n)
	}
	gated.Store(true)

	mark := rec.Len()
	done := make(chan error, len(names))
	for _, n := range names {
		go func() {
			_, err := sup.CallTool(ctx, n+"__echo", map[string]any{})
			done <- err
		}()
	}
	started := []string{receive(t, ctx, dialing), receive(t, ctx, dialing)}
	third := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(started, n) })[0]
	rec.WaitState(ctx, mark, third, messages.StatePending)
	select {
	case n := <-dialing:
		t.Fatalf("%s started while %v were starting", n, started)
	default:
	}

	opens[started[0]]() // one start ends: the third takes its slot
	if got := receive(t, ctx, dialing); got != third {
		t.Fatalf("%s started next, want %s", got, third)
	}
	opens[started[1]]()
	opens[third]()
	for range names {
		if err := receive(t, ctx, done); err != nil {
			t.Errorf("call: %v", err)
		}
	}
}

// receive is the next value of ch, within the test's context.
func receive[T any](t *testing.T, ctx context.Context, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatal("nothing received before the test's deadline")
		var zero T
		return zero
	}
}
