package actors_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// transitions renders server's state changes from index i on as
// "from→to (reason)", the exact sequence the tests assert.
func transitions(rec *actorstest.Recorder, i int, server string) []string {
	var out []string
	for _, e := range rec.Since(i) {
		if sc, ok := e.(*messages.ServerStateChanged); ok && sc.Server == server {
			out = append(out, string(sc.From)+"→"+string(sc.To)+" ("+sc.Reason+")")
		}
	}
	return out
}

func echoServers(names ...string) map[string]func() *mcp.Server {
	out := map[string]func() *mcp.Server{}
	for _, n := range names {
		out[n] = toolServer(tool("echo", "e"))
	}
	return out
}

// A crash is retried after the backoff delay on the quartz clock and
// recovers on a new session; the failure shows attempt and next retry.
func TestFleetActor_CrashIsRetriedAfterBackoff(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	backoffs := mClock.Trap().AfterFunc("fleet", "backoff")
	defer backoffs.Close()
	f := newFleet(t, echoServers("s"))
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "s")}, Backoff: reconcilerBackoff(time.Second)})
	_, ready := rec.WaitState(ctx, 0, "s", messages.StateReady)

	mark := rec.Len()
	f.kill("s")
	call := backoffs.MustWait(ctx)
	if call.Duration != time.Second {
		t.Fatalf("backoff = %s, want 1s", call.Duration)
	}
	call.MustRelease(ctx)
	_, failed := rec.WaitState(ctx, mark, "s", messages.StateFailed)
	if failed.Attempt != 1 || !failed.NextRetry.Equal(mClock.Now().Add(time.Second)) || failed.Session != ready.Session {
		t.Fatalf("failed event = %+v, want attempt 1, next retry in 1s, session %d", failed, ready.Session)
	}
	if st := sup.Status().Servers[0]; st.State != messages.StateFailed || st.LastError == "" || st.NextRetry.IsZero() {
		t.Fatalf("status while failed = %+v", st)
	}
	mClock.Advance(time.Second).MustWait(ctx)
	_, again := rec.WaitState(ctx, mark, "s", messages.StateReady)
	want := []string{
		"ready→failed (failed; retrying in 1s)",
		"failed→starting (retry after backoff)",
		"starting→ready (connected)",
	}
	if diff := cmp.Diff(want, transitions(rec, mark, "s")); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s", diff)
	}
	if again.Session == ready.Session {
		t.Fatal("recovered on the dead session")
	}
	if st := sup.Status().Servers[0]; st.Restarts != 1 || st.Attempt != 0 || st.LastError != "" {
		t.Fatalf("status after recovery = %+v, want 1 restart and a clean slate", st)
	}
}

// After the crash-loop budget is spent the server stops retrying by itself
// and says so; a resync revives it with a fresh budget.
func TestFleetActor_CrashLoopStopsRetryingUntilResync(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	backoffs := mClock.Trap().AfterFunc("fleet", "backoff")
	defer backoffs.Close()
	f := newFleet(t, echoServers("s"))
	sup, rec := startInMemory(t, mClock, f, actors.Options{
		ConfigPaths: []string{configFor(t, "s")},
		Backoff:     reconcilerBackoff(time.Second),
		CrashLoop:   reconciler.CrashLoop{Failures: 3, Window: time.Minute},
	})
	rec.WaitState(ctx, 0, "s", messages.StateReady)
	mark := rec.Len()
	for i := 1; i <= 2; i++ {
		from := rec.Len()
		f.kill("s")
		backoffs.MustWait(ctx).MustRelease(ctx)
		mClock.Advance(time.Second).MustWait(ctx)
		rec.WaitState(ctx, from, "s", messages.StateReady)
	}
	from := rec.Len()
	f.kill("s")
	_, looped := rec.WaitState(ctx, from, "s", messages.StateFailed)
	if !strings.Contains(looped.Reason, "crash loop") || !looped.NextRetry.IsZero() {
		t.Fatalf("third failure = %+v, want a crash loop with no retry scheduled", looped)
	}
	if d, ok := mClock.Peek(); ok {
		t.Fatalf("a timer is still armed (due in %s) after the crash loop", d)
	}

	plan, done, err := sup.Resync(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]messages.PlanStep{{Server: "s", Action: messages.ActionRetry, Reason: "failed: retry"}}, plan.Steps); diff != "" {
		t.Fatalf("resync plan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]messages.ServerOutcome{{Server: "s", State: messages.StateReady}}, done.Outcomes); diff != "" {
		t.Fatalf("resync outcome (-want +got):\n%s", diff)
	}
	rec.WaitState(ctx, from, "s", messages.StateReady)
	cycle := []string{"ready→failed (failed; retrying in 1s)", "failed→starting (retry after backoff)", "starting→ready (connected)"}
	want := append(append(append([]string{}, cycle...), cycle...),
		"ready→failed (crash loop (3 failures in 1m0s): waiting for resync or config change)",
		"failed→starting (failed: retry)", "starting→ready (connected)")
	if diff := cmp.Diff(want, transitions(rec, mark, "s")); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s", diff)
	}
	// The budget was reset: the next failure retries again.
	from = rec.Len()
	f.kill("s")
	backoffs.MustWait(ctx).MustRelease(ctx)
	_, failed := rec.WaitState(ctx, from, "s", messages.StateFailed)
	if failed.Attempt != 1 || strings.Contains(failed.Reason, "crash loop") {
		t.Fatalf("failure after resync = %+v, want attempt 1 with a retry", failed)
	}
}

// With restart "never", a failed server waits for a resync.
func TestFleetActor_RestartNeverWaitsForResync(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("s"))
	cfg := configFor(t)
	writeConfig(t, cfg, map[string]any{"s": map[string]any{"command": "in-memory", "restart": "never"}})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	rec.WaitState(ctx, 0, "s", messages.StateReady)
	mark := rec.Len()
	f.kill("s")
	_, failed := rec.WaitState(ctx, mark, "s", messages.StateFailed)
	if !strings.Contains(failed.Reason, "restart policy never") || !failed.NextRetry.IsZero() {
		t.Fatalf("failure = %+v", failed)
	}
	if _, ok := mClock.Peek(); ok {
		t.Fatal("a retry timer is armed for a restart-never server")
	}
	if _, done, err := sup.Resync(ctx, false); err != nil || done.Outcomes[0].State != messages.StateReady {
		t.Fatalf("resync = %+v, %v", done, err)
	}
}

// A changed server whose new config fails keeps serving on its old
// session, with a warning; the next edit tries again.
func TestFleetActor_FailedChangeKeepsTheOldSession(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("s"))
	cfg := configFor(t, "s")
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	_, ready := rec.WaitState(ctx, 0, "s", messages.StateReady)

	f.breakDials("s", errors.New("the new binary does not start"))
	mark := rec.Len()
	writeConfig(t, cfg, map[string]any{"s": map[string]any{"command": "in-memory", "args": []string{"--v2"}}})
	reload(t, ctx, sup, rec)
	_, warn := rec.WaitFor(ctx, mark, "kept old session", func(e messages.Event) bool {
		sc, ok := e.(*messages.ServerStateChanged)
		return ok && sc.Server == "s" && sc.Error != ""
	})
	if sc := warn.(*messages.ServerStateChanged); sc.From != messages.StateReady || sc.To != messages.StateReady || sc.Session != ready.Session {
		t.Fatalf("event = %+v, want ready→ready on the old session %d", sc, ready.Session)
	}
	st := sup.Status().Servers[0]
	if st.State != messages.StateReady || st.Session != ready.Session || !strings.Contains(st.Warning, "the new binary does not start") {
		t.Fatalf("status = %+v, want ready on the old session with a warning", st)
	}
	if _, err := sup.CallTool(ctx, "s__echo", map[string]any{}); err != nil {
		t.Fatalf("call on the kept session: %v", err)
	}

	// Mend it; a resync applies the change (make before break).
	f.breakDials("s", nil)
	mark = rec.Len()
	if _, done, err := sup.Resync(ctx, false); err != nil || done.Outcomes[0].State != messages.StateReady {
		t.Fatalf("resync = %+v, %v", done, err)
	}
	rec.WaitFor(ctx, mark, "restarted", func(e messages.Event) bool {
		sc, ok := e.(*messages.ServerStateChanged)
		return ok && sc.Server == "s" && strings.HasPrefix(sc.Reason, "restarted")
	})
	st = sup.Status().Servers[0]
	if st.Session == ready.Session || st.Warning != "" {
		t.Fatalf("after the mended change: %+v, want a new session and no warning", st)
	}
	want := []string{"ready→ready (restarted, changed: args)"}
	if diff := cmp.Diff(want, transitions(rec, mark, "s")); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s", diff)
	}
}

// A resync retries every failed server now and touches no healthy one; a
// dry run only plans.
func TestFleetActor_ResyncRetriesFailedAndKeepsHealthy(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("down", "up"))
	f.breakDials("down", errors.New("binary missing"))
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "down", "up")}, Backoff: reconcilerBackoff(time.Hour)})
	rec.WaitState(ctx, 0, "up", messages.StateReady)
	rec.WaitState(ctx, 0, "down", messages.StateFailed)
	upDials := f.dialCount("up")

	mark := rec.Len()
	plan, done, err := sup.Resync(ctx, true)
	if err != nil || done != nil {
		t.Fatalf("dry run = %v, %v", done, err)
	}
	wantPlan := []messages.PlanStep{
		{Server: "down", Action: messages.ActionRetry, Reason: "failed: retry"},
		{Server: "up", Action: messages.ActionKeep, Reason: "unchanged"},
	}
	if diff := cmp.Diff(wantPlan, plan.Steps); diff != "" || !plan.DryRun {
		t.Fatalf("dry-run plan (-want +got):\n%s", diff)
	}
	if got := transitions(rec, mark, "down"); len(got) != 0 {
		t.Fatalf("a dry run changed state: %v", got)
	}

	f.breakDials("down", nil) // the binary appears; the config is untouched
	plan, done, err = sup.Resync(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantPlan, plan.Steps); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]messages.ServerOutcome{{Server: "down", State: messages.StateReady}}, done.Outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	// The outcome is only sent once the view shows it.
	if st := sup.Status().Servers[0]; st.Name != "down" || st.State != messages.StateReady {
		t.Fatalf("status right after the resync answered = %+v, want down ready", st)
	}
	if got := transitions(rec, mark, "up"); len(got) != 0 || f.dialCount("up") != upDials {
		t.Fatalf("up was touched by the resync: %v", got)
	}
}

// Connects run with bounded concurrency: queued servers are pending and
// start as slots free up; a hung server holds one slot, not the fleet.
func TestFleetActor_BoundedConnectsQueueAsPending(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	servers := echoServers("a", "b", "c")
	servers["a"] = nil // hangs
	f := newFleet(t, servers)
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "a", "b", "c")}, MaxConnects: 2})
	rec.WaitState(ctx, 0, "b", messages.StateReady)
	rec.WaitState(ctx, 0, "c", messages.StateReady)
	if got := transitions(rec, 0, "c"); !strings.Contains(strings.Join(got, ";"), "pending") {
		t.Fatalf("c never queued: %v", got)
	}
	if st := sup.Status().Servers[0]; st.Name != "a" || st.State != messages.StateStarting {
		t.Fatalf("a = %+v, want still starting", st)
	}
}

// Generations: status reports the newest desired state and the newest one
// applied; an edit that changes nothing does not bump it.
func TestFleetActor_Generations(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("a", "b"))
	cfg := configFor(t, "a")
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	rec.WaitState(ctx, 0, "a", messages.StateReady)
	if st := sup.Status(); st.Generation != 1 || st.ObservedGeneration != 1 {
		t.Fatalf("generations = %d/%d, want 1/1", st.Generation, st.ObservedGeneration)
	}
	reload(t, ctx, sup, rec) // same content
	if _, _, err := sup.Resync(ctx, true); err != nil {
		t.Fatal(err)
	}
	if st := sup.Status(); st.Generation != 1 {
		t.Fatalf("an unchanged read bumped the generation to %d", st.Generation)
	}
	writeConfig(t, cfg, map[string]any{"a": map[string]any{"command": "in-memory"}, "b": map[string]any{"command": "in-memory"}})
	mark := rec.Len()
	reload(t, ctx, sup, rec)
	rec.WaitFor(ctx, mark, "plan applied", func(e messages.Event) bool {
		pa, ok := e.(*messages.PlanApplied)
		return ok && pa.Generation == 2
	})
	if st := sup.Status(); st.Generation != 2 || st.ObservedGeneration != 2 {
		t.Fatalf("generations = %d/%d, want 2/2", st.Generation, st.ObservedGeneration)
	}
	// A superseded desired state is ignored.
	mark = rec.Len()
	actorstest.Send(t, sup, actorstest.Fleet, &messages.DesiredState{Generation: 1})
	if _, _, err := sup.Resync(ctx, true); err != nil {
		t.Fatal(err)
	}
	if got := transitions(rec, mark, "b"); len(got) != 0 {
		t.Fatalf("a stale desired state stopped b: %v", got)
	}
}

// An invalid entry is reported and starts nothing; its siblings run.
func TestFleetActor_InvalidEntryLeavesSiblingsAlone(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("good"))
	cfg := configFor(t)
	writeConfig(t, cfg, map[string]any{
		"good": map[string]any{"command": "in-memory"},
		"bad":  map[string]any{"command": "in-memory", "args": "not-a-list"},
	})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	rec.WaitState(ctx, 0, "good", messages.StateReady)
	rec.WaitState(ctx, 0, "bad", messages.StateInvalid)
	st := sup.Status()
	if len(st.Servers) != 2 || st.Servers[0].Name != "bad" || st.Servers[0].State != messages.StateInvalid || st.Servers[0].LastError == "" {
		t.Fatalf("status = %+v", st.Servers)
	}
	if len(st.ConfigErrors) == 0 {
		t.Fatal("no config error reported for the invalid entry")
	}
	if f.dialCount("bad") != 0 {
		t.Fatal("an invalid entry was dialled")
	}
}

// A dry-run resync shows the plan for what the files say now, including
// edits nobody applied yet, and changes nothing.
func TestFleetActor_DryRunShowsPendingEditsAndChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("a", "b"))
	cfg := configFor(t, "a")
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	rec.WaitState(ctx, 0, "a", messages.StateReady)
	writeConfig(t, cfg, map[string]any{"a": map[string]any{"command": "in-memory"}, "b": map[string]any{"command": "in-memory"}})

	mark := rec.Len()
	plan, _, err := sup.Resync(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []messages.PlanStep{
		{Server: "a", Action: messages.ActionKeep, Reason: "unchanged"},
		{Server: "b", Action: messages.ActionStart, Reason: "new"},
	}
	if diff := cmp.Diff(want, plan.Steps); diff != "" || plan.Generation != 2 {
		t.Fatalf("dry-run plan for generation %d (-want +got):\n%s", plan.Generation, diff)
	}
	if st := sup.Status(); st.Generation != 1 || len(st.Servers) != 1 || f.dialCount("b") != 0 {
		t.Fatalf("a dry run applied the edit: %+v", st)
	}
	// The edit is still there to apply: a real resync does.
	if _, _, err := sup.Resync(ctx, false); err != nil {
		t.Fatal(err)
	}
	rec.WaitState(ctx, mark, "b", messages.StateReady)
	if st := sup.Status(); st.Generation != 2 {
		t.Fatalf("generation = %d after applying, want 2", st.Generation)
	}
}

// Restoring the config after a broken change (its new command does not
// start) makes the warning go: the serving session runs what the config
// says again. It used to read "new config failed, still serving the
// previous session" for good.
func TestFleetActor_RestoredConfigClearsTheWarning(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, echoServers("s"))
	cfg := configFor(t, "s")
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{cfg}})
	_, ready := rec.WaitState(ctx, 0, "s", messages.StateReady)

	f.breakDials("s", errors.New(`exec: "srv-v2": executable file not found in $PATH`))
	mark := rec.Len()
	writeConfig(t, cfg, map[string]any{"s": map[string]any{"command": "in-memory", "args": []string{"--v2"}}})
	reload(t, ctx, sup, rec)
	rec.WaitFor(ctx, mark, "kept old session", func(e messages.Event) bool {
		sc, ok := e.(*messages.ServerStateChanged)
		return ok && sc.Server == "s" && sc.Error != ""
	})
	if st := sup.Status().Servers[0]; st.Warning == "" {
		t.Fatalf("status = %+v, want the failed change's warning", st)
	}

	mark = rec.Len()
	writeConfig(t, cfg, map[string]any{"s": map[string]any{"command": "in-memory"}})
	reload(t, ctx, sup, rec)
	if _, _, err := sup.Resync(ctx, true); err != nil { // barrier: the desired state was applied
		t.Fatal(err)
	}
	st := sup.Status().Servers[0]
	if st.State != messages.StateReady || st.Session != ready.Session || st.Warning != "" {
		t.Fatalf("status after the restore = %+v, want ready on session %d with no warning", st, ready.Session)
	}
	rec.WaitFor(ctx, mark, "the barrier's completion", func(e messages.Event) bool { _, ok := e.(*messages.ResyncCompleted); return ok })
	if diff := cmp.Diff([]string{"ready→ready (config matches the serving session again)"}, transitions(rec, mark, "s")); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s", diff)
	}
	if got := f.dialCount("s"); got != 2 {
		t.Fatalf("s dialled %d times, want 2 (the first start and the failed change): the restore restarted it", got)
	}
}
