package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
	"github.com/mcpvisor/mcpvisor/messages"
)

var samplePlan = []messages.PlanStep{
	{Server: "alpha", Action: messages.ActionKeep, Reason: "unchanged"},
	{Server: "beta", Action: messages.ActionRetry, Reason: "failed: retry"},
}

// resyncFleet answers resyncs with samplePlan and beta's outcome; it
// reports each dryRun it was asked for.
func resyncFleet(asked chan<- bool) *httpapitest.Fleet {
	f := &httpapitest.Fleet{ResyncFunc: func(_ context.Context, dryRun bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error) {
		asked <- dryRun
		planned := &messages.ResyncPlanned{ID: "resync-41", Generation: 3, DryRun: dryRun, Steps: samplePlan}
		if dryRun {
			return planned, nil, nil
		}
		return planned, &messages.ResyncCompleted{ID: "resync-41", Generation: 3, Outcomes: []messages.ServerOutcome{{Server: "beta", State: messages.StateReady}}}, nil
	}}
	f.SetStatus(sampleStatus())
	return f
}

func TestResync_ReturnsPlanOutcomesAndStatus(t *testing.T) {
	t.Parallel()
	asked := make(chan bool, 1)
	ts, _ := api(t, httpapi.Options{Fleet: resyncFleet(asked)})

	res := request(t, ts, http.MethodPost, "/api/v1/resync", "")
	if res.code != http.StatusOK || <-asked {
		t.Fatalf("= %d %s, want 200 from a real (not dry) resync", res.code, res.body)
	}
	golden(t, "resync.json", indent(t, res.body))
	var got httpapi.ResyncResult
	res.json(t, &got)
	if !got.Complete || got.Note != "" || got.Status == nil || len(got.Status.Servers) != 3 {
		t.Fatalf("result = %+v, want complete with the status", got)
	}
}

func TestResync_DryRunHasPlanOnly(t *testing.T) {
	t.Parallel()
	asked := make(chan bool, 1)
	ts, _ := api(t, httpapi.Options{Fleet: resyncFleet(asked)})

	res := request(t, ts, http.MethodPost, "/api/v1/resync", `{"dryRun": true}`)
	if res.code != http.StatusOK || !<-asked {
		t.Fatalf("= %d %s, want 200 from a dry run", res.code, res.body)
	}
	golden(t, "resync_dry_run.json", indent(t, res.body))
}

// When the servers do not settle within ResyncWait, the answer is the plan
// and the status as they are, marked incomplete with a note.
func TestResync_WaitRunsOutWithANote(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t)
	fleet := &httpapitest.Fleet{ResyncFunc: func(ctx context.Context, _ bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error) {
		<-ctx.Done() // the servers never settle
		return &messages.ResyncPlanned{ID: "r", Generation: 3, Steps: samplePlan}, nil, ctx.Err()
	}}
	fleet.SetStatus(sampleStatus())
	ts, _ := api(t, httpapi.Options{Fleet: fleet, Clock: clock, ResyncWait: 30 * time.Second})
	trap := clock.Trap().AfterFunc("httpapi", "resync")
	defer trap.Close()

	done := make(chan response, 1)
	go func() {
		res, _ := send(ctx, ts, http.MethodPost, "/api/v1/resync", "")
		done <- res
	}()
	call := trap.MustWait(ctx)
	if call.Duration != 30*time.Second {
		t.Fatalf("resync wait = %s, want 30s", call.Duration)
	}
	call.MustRelease(ctx)
	clock.Advance(30 * time.Second).MustWait(ctx)

	res := <-done
	var got httpapi.ResyncResult
	res.json(t, &got)
	if res.code != http.StatusOK || got.Complete || !strings.Contains(got.Note, "30s") || got.Status == nil || len(got.Plan) != 2 {
		t.Fatalf("= %d %s, want 200, incomplete, a note, the plan and the status", res.code, res.body)
	}
}

// No plan at all within the wait is a 504.
func TestResync_NoPlanInTimeIs504(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t)
	fleet := &httpapitest.Fleet{ResyncFunc: func(ctx context.Context, _ bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	}}
	ts, _ := api(t, httpapi.Options{Fleet: fleet, Clock: clock})
	trap := clock.Trap().AfterFunc("httpapi", "resync")
	defer trap.Close()

	done := make(chan response, 1)
	go func() {
		res, _ := send(ctx, ts, http.MethodPost, "/api/v1/resync", `{"dryRun": true}`)
		done <- res
	}()
	trap.MustWait(ctx).MustRelease(ctx)
	clock.Advance(30 * time.Second).MustWait(ctx)
	if res := <-done; res.code != http.StatusGatewayTimeout {
		t.Fatalf("= %d %s, want 504", res.code, res.body)
	}
}

func TestResync_ClosedSupervisorIs503(t *testing.T) {
	t.Parallel()
	fleet := &httpapitest.Fleet{ResyncFunc: func(context.Context, bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error) {
		return nil, nil, actors.ErrClosed
	}}
	ts, _ := api(t, httpapi.Options{Fleet: fleet})
	if res := request(t, ts, http.MethodPost, "/api/v1/resync", ""); res.code != http.StatusServiceUnavailable {
		t.Fatalf("= %d %s, want 503", res.code, res.body)
	}
}

func TestResync_BadBodyIs400(t *testing.T) {
	t.Parallel()
	ts, _ := api(t, httpapi.Options{})
	res := request(t, ts, http.MethodPost, "/api/v1/resync", `{"dry_run": true}`)
	if res.code != http.StatusBadRequest || !strings.Contains(res.errorText(t), "dry_run") {
		t.Fatalf("= %d %s, want 400 naming the unknown field", res.code, res.body)
	}
}
