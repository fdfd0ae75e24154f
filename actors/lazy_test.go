package actors_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// lazyConfig writes a config of one lazy in-memory server "s" with the
// given extra fields.
func lazyConfig(t *testing.T, extra map[string]any) string {
	t.Helper()
	entry := map[string]any{"command": "in-memory", "autostart": "lazy"}
	for k, v := range extra {
		entry[k] = v
	}
	path := configFor(t)
	writeConfig(t, path, map[string]any{"s": entry})
	return path
}

// primed waits until a lazy server's priming start is over: idle, with
// its catalog listed.
func primed(t *testing.T, rec *actorstest.Recorder, server string) {
	t.Helper()
	ctx := actorstest.Context(t)
	stopping, _ := rec.WaitState(ctx, 0, server, messages.StateStopping)
	rec.WaitState(ctx, stopping, server, messages.StateIdle)
}

// A lazy server whose catalog is not known is started once to list it,
// then stopped, back to idle: its tools stay listed with no process
// running, and each transition is an event.
func TestLazy_PrimingStartListsTheCatalogAndStops(t *testing.T) {
	t.Parallel()
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("s"))
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{lazyConfig(t, nil)}})
	primed(t, rec, "s")
	want := []string{
		"stopped→idle (lazy: idle until used)",
		"idle→starting (listing its catalog)",
		"starting→ready (connected)",
		"ready→stopping (catalog listed; idle until used)",
		"stopping→idle (process gone)",
	}
	if diff := cmp.Diff(want, transitions(rec, 0, "s")); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s", diff)
	}
	if st := sup.Status().Servers[0]; st.State != messages.StateIdle || st.PID != 0 || st.Session != 0 || st.Tools != 1 {
		t.Fatalf("status = %+v, want idle, no session, its one tool listed", st)
	}
	if got := sup.Tools(); len(got) != 1 || got[0].Name != "echo" {
		t.Fatalf("tools while idle = %+v, want s's echo", got)
	}
	if n := f.dialCount("s"); n != 1 {
		t.Fatalf("dials = %d, want the one priming start", n)
	}
}

// The first call starts an idle lazy server and waits for it; after its
// idle timeout without use it is stopped and idle again, not stopped,
// with its tools still listed.
func TestLazy_FirstCallStartsItIdleTimeoutStopsIt(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	idle := mClock.Trap().AfterFunc("fleet", "idle")
	defer idle.Close()
	f := newFleet(t, echoServers("s"))
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{lazyConfig(t, map[string]any{"idleTimeout": "1m"})}})
	primed(t, rec, "s")

	mark := rec.Len()
	res, err := sup.CallTool(ctx, "s__echo", map[string]any{})
	if err != nil {
		t.Fatalf("first call: %v", err)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "echo" {
		t.Fatalf("first call = %+v, want the server's answer", res)
	}
	if n := f.dialCount("s"); n != 2 {
		t.Fatalf("dials = %d, want the priming start and the call's", n)
	}
	// The call's end arms the idle timer.
	armed := idle.MustWait(ctx)
	if armed.Duration != time.Minute {
		t.Fatalf("idle timer = %s, want 1m", armed.Duration)
	}
	armed.MustRelease(ctx)
	if d, ok := mClock.Peek(); !ok || d != time.Minute {
		t.Fatalf("next timer in %s (%v), want the idle timer in 1m", d, ok)
	}
	mClock.Advance(time.Minute).MustWait(ctx)
	_, back := rec.WaitState(ctx, mark, "s", messages.StateIdle)
	want := []string{
		"idle→starting (used)",
		"starting→ready (connected)",
		"ready→stopping (unused for 1m0s)",
		"stopping→idle (process gone)",
	}
	if diff := cmp.Diff(want, transitions(rec, mark, "s")); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s", diff)
	}
	if back.Session == 0 {
		t.Fatalf("idle event %+v names no session", back)
	}
	if st := sup.Status().Servers[0]; st.State != messages.StateIdle || st.PID != 0 || st.Tools != 1 {
		t.Fatalf("status after the idle timeout = %+v, want idle with its tool listed", st)
	}
}

// A resync retries failed servers: it starts no idle one.
func TestLazy_ResyncStartsNoIdleServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("s"))
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{lazyConfig(t, nil)}})
	primed(t, rec, "s")
	mark := rec.Len()
	plan, done, err := sup.Resync(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]messages.PlanStep{{Server: "s", Action: messages.ActionKeep, Reason: "unchanged"}}, plan.Steps); diff != "" {
		t.Fatalf("resync plan (-want +got):\n%s", diff)
	}
	if len(done.Outcomes) != 0 {
		t.Fatalf("resync waited for %+v, want nothing", done.Outcomes)
	}
	if got := transitions(rec, mark, "s"); len(got) != 0 {
		t.Fatalf("resync moved the idle server: %v", got)
	}
	if n := f.dialCount("s"); n != 1 || sup.Status().Servers[0].State != messages.StateIdle {
		t.Fatalf("after resync: %d dials, status %+v; want the priming dial only, idle", n, sup.Status().Servers[0])
	}
}

// The server's own autostart wins over the Supervisor's default; with
// the default lazy, an entry without one is lazy.
func TestLazy_SupervisorDefault(t *testing.T) {
	t.Parallel()
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("l", "e"))
	path := configFor(t)
	writeConfig(t, path, map[string]any{
		"l": map[string]any{"command": "in-memory"},
		"e": map[string]any{"command": "in-memory", "autostart": "eager"},
	})
	_, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{path}, Autostart: messages.AutostartLazy})
	primed(t, rec, "l")
	ctx := actorstest.Context(t)
	rec.WaitState(ctx, 0, "e", messages.StateReady)
	if got := transitions(rec, 0, "e"); !cmp.Equal(got, []string{"stopped→starting (new)", "starting→ready (connected)"}) {
		t.Fatalf("eager entry: %v", got)
	}
}

// A lazy server that cannot start answers the call with the usual error
// class, naming why (here the crash-loop budget of one failure is spent,
// so the call is refused at once rather than waiting out the backoff).
func TestLazy_FailedStartIsTheCallsError(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("s"))
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{lazyConfig(t, nil)},
		CrashLoop: reconciler.CrashLoop{Failures: 1, Window: time.Minute}})
	primed(t, rec, "s")
	f.breakDials("s", errors.New("no such binary"))
	_, err := sup.CallTool(ctx, "s__echo", map[string]any{})
	if !errors.Is(err, actors.ErrNotReady) || !strings.Contains(err.Error(), "no such binary") {
		t.Fatalf("call = %v, want ErrNotReady naming the failure", err)
	}
}

// Prompt gets, resource reads and completions start an idle lazy server
// as calls do, its prompts and resources listed (and routed) while idle.
func TestLazy_GetReadCompleteStartAnIdleServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	idle := mClock.Trap().AfterFunc("fleet", "idle")
	defer idle.Close()
	c := newCatalogServer("s")
	f := newFleet(t, map[string]func() *mcp.Server{"s": func() *mcp.Server { return c.srv }})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{lazyConfig(t, map[string]any{"idleTimeout": "1m"})}})
	primed(t, rec, "s")
	if len(sup.Prompts()) != 1 || len(sup.Resources()) != 1 || len(sup.ResourceTemplates()) != 1 {
		t.Fatalf("while idle: prompts %v, resources %v, templates %v; want one of each", sup.Prompts(), sup.Resources(), sup.ResourceTemplates())
	}
	for _, req := range []struct {
		name string
		run  func() error
	}{
		{"get", func() error { _, err := sup.GetPrompt(ctx, "s__greet", map[string]string{"who": "w"}); return err }},
		{"read", func() error { _, err := sup.ReadResource(ctx, "mem://s/items/1"); return err }},
		{"complete", func() error {
			_, err := sup.Complete(ctx, &mcp.CompleteReference{Type: "ref/prompt", Name: "s__greet"}, mcp.CompleteParamsArgument{Name: "who", Value: "w"}, nil)
			return err
		}},
	} {
		mark := rec.Len()
		if err := req.run(); err != nil {
			t.Fatalf("%s while idle: %v", req.name, err)
		}
		idle.MustWait(ctx).MustRelease(ctx)
		mClock.Advance(time.Minute).MustWait(ctx)
		rec.WaitState(ctx, mark, "s", messages.StateIdle)
		want := []string{"idle→starting (used)", "starting→ready (connected)", "ready→stopping (unused for 1m0s)", "stopping→idle (process gone)"}
		if diff := cmp.Diff(want, transitions(rec, mark, "s")); diff != "" {
			t.Fatalf("%s: transitions (-want +got):\n%s", req.name, diff)
		}
	}
}

// A call in flight keeps a lazy server from its idle stop: a shorter call
// that starts and ends meanwhile arms no idle timer (the trap would hold
// the fleet actor, and the barrier through its mailbox would never pass);
// the timer is armed once the last call ends.
func TestLazy_InFlightCallKeepsItRunning(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	idle := mClock.Trap().AfterFunc("fleet", "idle")
	defer idle.Close()
	entered, unblock := make(chan struct{}), make(chan struct{})
	mk := func() *mcp.Server {
		srv := toolServer(tool("echo", "e"))()
		srv.AddTool(tool("block", "b"), func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(entered)
			select {
			case <-unblock:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{}, nil
		})
		return srv
	}
	f := newFleet(t, map[string]func() *mcp.Server{"s": mk})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{lazyConfig(t, map[string]any{"idleTimeout": "1m"})}})
	primed(t, rec, "s")

	long := make(chan error, 1)
	go func() {
		_, err := sup.CallTool(ctx, "s__block", map[string]any{})
		long <- err
	}()
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the long call never reached the server")
	}
	if _, err := sup.CallTool(ctx, "s__echo", map[string]any{}); err != nil {
		t.Fatalf("short call: %v", err)
	}
	actorstest.Barrier(ctx, t, sup, actorstest.Fleet)
	close(unblock)
	if err := <-long; err != nil {
		t.Fatalf("long call: %v", err)
	}
	if armed := idle.MustWait(ctx); armed.Duration != time.Minute {
		t.Fatalf("idle timer %s, want 1m", armed.Duration)
	} else {
		armed.MustRelease(ctx)
	}
	if st := sup.Status().Servers[0]; st.State != messages.StateReady {
		t.Fatalf("status %+v, want ready until the timeout", st)
	}
}

// The cost of a call to a ready lazy server, which goes through the
// fleet actor (a use and its release) on top of the eager path; compare
// with BenchmarkCallTool_InMemory/supervisor.
func BenchmarkCallTool_LazyReady(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "mcp.json")
	if err := os.WriteFile(path, mustJSON(map[string]any{"mcpServers": map[string]any{"s": map[string]any{"command": "in-memory", "autostart": "lazy"}}}), 0o600); err != nil {
		b.Fatal(err)
	}
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{path}, Dial: benchDial, DisableWatch: true, ProbeInterval: -1, Logger: zap.NewNop()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = sup.Close() })
	args := map[string]any{}
	// The listing start stops the server again; the call after it starts
	// it, and it keeps running (no idle timeout).
	sub := sup.Follow(0, 256)
	b.Cleanup(sub.Close)
	for st := sup.Status(); len(st.Servers) != 1 || st.Servers[0].State != messages.StateIdle || len(sup.Tools()) != 1; st = sup.Status() {
		<-sub.C
	}
	if _, err := sup.CallTool(ctx, "s__echo", args); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := sup.CallTool(ctx, "s__echo", args); err != nil {
			b.Fatal(err)
		}
	}
}
