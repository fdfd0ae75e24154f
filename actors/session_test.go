package actors_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// A server that never answers the handshake fails on its own connect
// timeout (on the quartz clock) and does not hold up a healthy sibling.
func TestSession_ConnectTimeoutFailsOnlyThatServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	connects := mClock.Trap().AfterFunc("session", "connect")
	defer connects.Close()
	f := newFleet(t, map[string]func() *mcp.Server{"hung": nil, "ok": toolServer(tool("echo", "e"))})
	_, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "hung", "ok")}, ConnectTimeout: 5 * time.Second})

	for range 2 {
		call := connects.MustWait(ctx)
		if call.Duration != 5*time.Second {
			t.Fatalf("connect timeout armed for %s, want 5s", call.Duration)
		}
		call.MustRelease(ctx)
	}
	rec.WaitState(ctx, 0, "ok", messages.StateReady)

	// Only the hung server's connect timer is left; fire it.
	d, w := mClock.AdvanceNext()
	w.MustWait(ctx)
	if d != 5*time.Second {
		t.Fatalf("next timer after %s, want the 5s connect timeout", d)
	}
	_, failed := rec.WaitState(ctx, 0, "hung", messages.StateFailed)
	if !strings.Contains(failed.Error, "no answer to the MCP handshake within 5s") {
		t.Fatalf("failure = %q, want it to name the handshake timeout", failed.Error)
	}
	if got := rec.StateChanges(0, "ok"); !cmp.Equal(got, []string{"stopped→starting", "starting→ready"}) {
		t.Fatalf("ok's transitions = %v, want only its own start", got)
	}
}

// A tools/list_changed notification makes the session list again; the
// fleet actor publishes what was added, removed and changed (by hash).
func TestSession_ListChangedPublishesTheDifference(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	srv := toolServer(tool("a", "first"), tool("b", "second"))()
	f := newFleet(t, map[string]func() *mcp.Server{"s": func() *mcp.Server { return srv }})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "s")}})

	toolsEvent := func(from int, what string) *messages.ToolsChanged {
		_, ev := rec.WaitFor(ctx, from, what, func(e messages.Event) bool {
			_, ok := e.(*messages.ToolsChanged)
			return ok
		})
		return ev.(*messages.ToolsChanged)
	}
	first := toolsEvent(0, "initial tools")
	if diff := cmp.Diff([]string{"a", "b"}, first.Added); diff != "" {
		t.Fatalf("initial added (-want +got):\n%s", diff)
	}
	// An empty properties object survives the round trip.
	schema, _ := json.Marshal(first.Tools[0].InputSchema)
	if !strings.Contains(string(schema), `"properties":{}`) {
		t.Fatalf("input schema %s lost its empty properties", schema)
	}

	mark := rec.Len()
	srv.AddTool(tool("c", "third"), echoHandler)
	added := toolsEvent(mark, "c added")
	if diff := cmp.Diff([]string{"c"}, added.Added); diff != "" {
		t.Fatalf("added (-want +got):\n%s", diff)
	}

	// A second re-list of tools waits out the re-list interval.
	mClock.Advance(time.Second).MustWait(ctx)
	mark = rec.Len()
	srv.RemoveTools("a")
	srv.AddTool(tool("b", "second, reworded"), echoHandler)
	ev := toolsEvent(mark, "a removed, b changed")
	for len(ev.Removed) == 0 || len(ev.Changed) == 0 { // the server may notify twice
		mClock.Advance(time.Second).MustWait(ctx)
		next := toolsEvent(mark+1, "rest of the change")
		ev = &messages.ToolsChanged{Removed: append(ev.Removed, next.Removed...), Changed: append(ev.Changed, next.Changed...), Tools: next.Tools}
		mark++
	}
	if diff := cmp.Diff([]string{"a"}, ev.Removed); diff != "" {
		t.Fatalf("removed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b"}, ev.Changed); diff != "" {
		t.Fatalf("changed (-want +got):\n%s", diff)
	}
	var names []string
	for _, tl := range sup.Tools() {
		names = append(names, actors.QualifiedName(tl.Server, tl.Name))
	}
	if diff := cmp.Diff([]string{"s__b", "s__c"}, names); diff != "" {
		t.Fatalf("Tools() (-want +got):\n%s", diff)
	}
}

// A session that stops answering (no transport signal) is failed by the
// health probe after ProbeFailures misses in a row, never left ready.
func TestSession_HealthProbeFailsAWedgedServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	probes := mClock.Trap().AfterFunc("session", "probe")
	defer probes.Close()
	timeouts := mClock.Trap().AfterFunc("session", "probe-timeout")
	defer timeouts.Close()
	var wedged atomic.Bool
	mk := func() *mcp.Server {
		srv := toolServer(tool("echo", "e"))()
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if wedged.Load() && (method == "ping" || method == "tools/list") { // whichever the probe uses
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return next(ctx, method, req)
			}
		})
		return srv
	}
	f := newFleet(t, map[string]func() *mcp.Server{"s": mk})
	_, rec := startInMemory(t, mClock, f, actors.Options{
		ConfigPaths: []string{configFor(t, "s")}, ProbeInterval: 30 * time.Second, ProbeTimeout: 10 * time.Second,
		Backoff: testBackoff,
	})
	rec.WaitState(ctx, 0, "s", messages.StateReady)

	// A healthy probe re-arms.
	probes.MustWait(ctx).MustRelease(ctx)
	mClock.Advance(30 * time.Second).MustWait(ctx)
	timeouts.MustWait(ctx).MustRelease(ctx)
	probes.MustWait(ctx).MustRelease(ctx)

	wedged.Store(true)
	mark := rec.Len()
	for miss := 1; miss <= 2; miss++ {
		mClock.Advance(20 * time.Second).MustWait(ctx) // the healthy probe's timeout timer was stopped
		mClock.Advance(10 * time.Second).MustWait(ctx) // probe due
		timeouts.MustWait(ctx).MustRelease(ctx)
		mClock.Advance(10 * time.Second).MustWait(ctx) // ping times out
		if miss == 1 {
			probes.MustWait(ctx).MustRelease(ctx)
			if got := rec.StateChanges(mark, "s"); len(got) != 0 {
				t.Fatalf("state changed after one miss: %v", got)
			}
		}
	}
	_, failed := rec.WaitState(ctx, mark, "s", messages.StateFailed)
	if !strings.Contains(failed.Error, "health probe failed 2 times") {
		t.Fatalf("failure = %q, want the health probe named", failed.Error)
	}
}

var testBackoff = reconcilerBackoff(time.Hour)

// A server removed while its handshake hangs is stopped at once: the
// connect is abandoned, its late result is dropped, and the only events are
// its start and its stop.
func TestSession_StopDuringConnectDropsTheResult(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	connects := mClock.Trap().AfterFunc("session", "connect")
	defer connects.Close()
	f := newFleet(t, map[string]func() *mcp.Server{"hung": nil, "ok": toolServer(tool("echo", "e"))})
	cfg := configFor(t, "hung", "ok")
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	connects.MustWait(ctx).MustRelease(ctx)
	connects.MustWait(ctx).MustRelease(ctx)
	rec.WaitState(ctx, 0, "ok", messages.StateReady)

	writeConfig(t, cfg, map[string]any{"ok": map[string]any{"command": "in-memory"}})
	reload(t, ctx, sup, rec)
	rec.WaitState(ctx, 0, "hung", messages.StateStopped)
	if _, _, err := sup.Resync(ctx, true); err != nil { // barrier
		t.Fatal(err)
	}
	want := []string{"stopped→starting (new)", "starting→stopping (removed)", "stopping→stopped (process gone)"}
	if diff := cmp.Diff(want, transitions(rec, 0, "hung")); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s", diff)
	}
	if d, ok := mClock.Peek(); ok {
		t.Fatalf("a timer is left (due in %s)", d)
	}
}

// panicOnce returns a Dial that panics with reason on its first call for
// name (through dial, or, with inTransport, inside the transport's
// Connect, on the session's lifeline) and dials f afterwards.
func panicOnce(f *fleet, name, reason string, inTransport bool) func(messages.ServerSpec) (mcp.Transport, error) {
	var panicked atomic.Bool
	return func(spec messages.ServerSpec) (mcp.Transport, error) {
		if spec.Name != name || panicked.Swap(true) {
			return f.dial(spec)
		}
		if inTransport {
			return panicTransport(reason), nil
		}
		panic(reason)
	}
}

type panicTransport string

func (p panicTransport) Connect(context.Context) (mcp.Connection, error) { panic(string(p)) }

// closeInBound closes sup and fails the test if Close does not return
// within the test context (it used to wait forever for a session actor
// that protoactor had restarted).
func closeInBound(t *testing.T, ctx context.Context, sup *actors.Supervisor) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- sup.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("close: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close did not return")
	}
}

// A session actor that panics (here in a user-supplied Options.Dial, which
// runs in its Receive) is stopped, never restarted by protoactor: its end
// is the server's failure, naming the panic, and the server retries on its
// backoff like after any other failure. Close keeps its bound.
func TestSession_PanicInDialIsAFailureAndRetried(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	backoffs := mClock.Trap().AfterFunc("fleet", "backoff")
	defer backoffs.Close()
	f := newFleet(t, echoServers("s", "ok"))
	opts := actors.Options{ConfigPaths: []string{configFor(t, "s", "ok")}, Backoff: reconcilerBackoff(time.Second)}
	sup, rec := startWithDial(t, mClock, panicOnce(f, "s", "dial exploded", false), opts)

	backoffs.MustWait(ctx).MustRelease(ctx)
	_, failed := rec.WaitState(ctx, 0, "s", messages.StateFailed)
	if !strings.Contains(failed.Error, "session crashed: dial exploded") || failed.Reason != "failed; retrying in 1s" {
		t.Fatalf("failure = %+v, want the panic named and a retry in 1s", failed)
	}
	rec.WaitState(ctx, 0, "ok", messages.StateReady)
	mClock.Advance(time.Second).MustWait(ctx)
	rec.WaitState(ctx, 0, "s", messages.StateReady)
	want := []string{
		"stopped→starting (new)",
		"starting→failed (failed; retrying in 1s)",
		"failed→starting (retry after backoff)",
		"starting→ready (connected)",
	}
	if diff := cmp.Diff(want, transitions(rec, 0, "s")); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s", diff)
	}
	if got := f.dialCount("s"); got != 1 {
		t.Fatalf("s dialled %d times after the panic, want 1 (the retry): a restarted actor dialled again", got)
	}
	closeInBound(t, ctx, sup)
}

// A panic on a session's lifeline goroutine (here in a custom transport's
// Connect) would end the whole process; it is the server's failure
// instead, and the server retries.
func TestSession_PanicOnTheLifelineIsAFailureAndRetried(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	backoffs := mClock.Trap().AfterFunc("fleet", "backoff")
	defer backoffs.Close()
	f := newFleet(t, echoServers("s"))
	opts := actors.Options{ConfigPaths: []string{configFor(t, "s")}, Backoff: reconcilerBackoff(time.Second)}
	sup, rec := startWithDial(t, mClock, panicOnce(f, "s", "transport exploded", true), opts)

	backoffs.MustWait(ctx).MustRelease(ctx)
	_, failed := rec.WaitState(ctx, 0, "s", messages.StateFailed)
	if !strings.Contains(failed.Error, "session panicked: transport exploded") {
		t.Fatalf("failure = %+v, want the panic named", failed)
	}
	mClock.Advance(time.Second).MustWait(ctx)
	rec.WaitState(ctx, 0, "s", messages.StateReady)
	closeInBound(t, ctx, sup)
}
