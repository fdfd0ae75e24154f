package actorstest_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
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

func state(server string, to messages.State) *messages.ServerStateChanged {
	return &messages.ServerStateChanged{Server: server, From: messages.StateStarting, To: to}
}

func ready(server string) func(*messages.ServerStateChanged) bool {
	return func(e *messages.ServerStateChanged) bool { return e.Server == server && e.To == messages.StateReady }
}

// Expect matches its filters in order and skips whatever comes between;
// the next Expect goes on from there.
func TestExpect_InOrderSkippingTheRest(t *testing.T) {
	t.Parallel()
	j := journal.New(journal.Options{})
	w := actorstest.NewWatcher(t, j)
	j.Publish(&messages.ConfigLoaded{Generation: 1})
	j.Publish(state("a", messages.StateStarting))
	j.Publish(state("a", messages.StateReady))
	j.Publish(&messages.ToolsChanged{Server: "a"})
	j.Publish(state("b", messages.StateReady))
	if err := actorstest.Expect(w, actorstest.Type[*messages.ConfigLoaded](), ready("a")); err != nil {
		t.Fatal(err)
	}
	if err := actorstest.Expect(w, func(e *messages.ToolsChanged) error {
		if e.Server != "a" {
			return errors.New("not a")
		}
		return nil
	}, ready("b")); err != nil {
		t.Fatal(err)
	}
	if n := len(w.Events()); n != 5 {
		t.Fatalf("%d events read, want 5", n)
	}
}

// ExpectExactly fails at the first event that does not match its filter,
// and says which; messages.Event matches any event.
func TestExpectExactly_NothingInBetween(t *testing.T) {
	t.Parallel()
	j := journal.New(journal.Options{})
	w := actorstest.NewWatcher(t, j)
	j.Publish(state("a", messages.StateReady))
	j.Publish(&messages.ToolsChanged{Server: "a"})
	j.Publish(state("b", messages.StateReady))
	if err := actorstest.ExpectExactly(w, ready("a"), actorstest.Type[messages.Event]()); err != nil {
		t.Fatal(err)
	}
	j.Publish(&messages.WatcherDegraded{})
	err := actorstest.ExpectExactly(w, ready("b"), ready("c"))
	if err == nil || !strings.Contains(err.Error(), "event 4 watcher.degraded") {
		t.Fatalf("err = %v, want the unexpected event named", err)
	}
}

// A filter of the wrong shape is an error, not a silent match; the end of
// the feed ends the wait with an error.
func TestExpect_BadFiltersAndEndedFeeds(t *testing.T) {
	t.Parallel()
	j := journal.New(journal.Options{})
	w := actorstest.NewWatcher(t, j)
	for _, f := range []any{nil, 3, func() {}, (func(*messages.ToolsChanged))(nil), func(int) bool { return true }, func(*messages.ToolsChanged) string { return "" }} {
		if err := actorstest.Expect(w, f); err == nil {
			t.Errorf("filter %T accepted", f)
		}
	}
	j.Close()
	if err := actorstest.Expect(w, ready("a")); err == nil || !strings.Contains(err.Error(), "feed ended") {
		t.Fatalf("err = %v, want the ended feed named", err)
	}
}

// Barrier returns once every message sent before it was handled: a real
// message through the same mailbox, no timeout.
func TestBarrier_AfterEveryEarlierMessage(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	sys := actors.NewActorSystem(zap.NewNop())
	var handled atomic.Int32
	pid := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if _, ok := c.Message().(*messages.FileChanged); ok {
			handled.Add(1)
		}
	}))
	defer func() { _ = sys.Root.StopFuture(pid).Wait() }()
	for range 100 {
		sys.Root.Send(pid, &messages.FileChanged{})
	}
	actorstest.Barrier(ctx, t, sys, pid)
	if n := handled.Load(); n != 100 {
		t.Fatalf("%d messages handled at the barrier, want all 100", n)
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
