package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// scrape returns the metrics' text exposition.
func scrape(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape = %d", rec.Code)
	}
	return rec.Body.String()
}

func wantLines(t *testing.T, text string, lines ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		have[l] = true
	}
	for _, l := range lines {
		if !have[l] {
			t.Errorf("metrics lack %q", l)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", text)
	}
}

// /metrics has the fleet by state, restarts, and the calls made through
// the API by outcome; every name starts with mcpvisor_.
func TestMetrics_FleetAndToolCalls(t *testing.T) {
	t.Parallel()
	fleet := &httpapitest.Fleet{CallFunc: func(_ context.Context, name string, _ any) (*mcp.CallToolResult, error) {
		switch name {
		case "alpha__echo":
			return &mcp.CallToolResult{}, nil
		case "alpha__fail":
			return &mcp.CallToolResult{IsError: true}, nil
		case "alpha__sleep":
			return nil, fmt.Errorf("%w after 1s", actors.ErrCallTimeout)
		}
		if _, _, ok := actors.SplitName(name); !ok {
			return nil, fmt.Errorf("%w: %q", actors.ErrBadToolName, name)
		}
		return nil, fmt.Errorf("%w: %q", actors.ErrUnknownServer, name)
	}}
	fleet.SetStatus(sampleStatus())
	ts, srv := api(t, httpapi.Options{Fleet: fleet})
	for _, name := range []string{"alpha__echo", "alpha__echo", "alpha__fail", "alpha__sleep", "zeta__x", "no-separator"} {
		request(t, ts, http.MethodPost, "/api/v1/tools/call", `{"name": "`+name+`"}`)
	}

	text := string(request(t, ts, http.MethodGet, "/metrics", "").body)
	if text != scrape(t, srv.Metrics().Handler()) {
		t.Error("/metrics differs from Metrics().Handler()")
	}
	wantLines(t, text,
		`mcpvisor_servers{state="ready"} 1`,
		`mcpvisor_servers{state="failed"} 1`,
		`mcpvisor_servers{state="invalid"} 1`,
		`mcpvisor_servers{state="pending"} 0`,
		`mcpvisor_servers{state="disabled"} 0`,
		`mcpvisor_servers{state="idle"} 0`,
		`mcpvisor_server_restarts_total{server="alpha"} 1`,
		`mcpvisor_server_tools{server="alpha"} 7`,
		`mcpvisor_config_generation 3`,
		`mcpvisor_config_observed_generation 3`,
		`mcpvisor_config_diagnostics{severity="error"} 1`,
		`mcpvisor_config_diagnostics{severity="warning"} 1`,
		`mcpvisor_tool_calls_total{outcome="ok",server="alpha"} 2`,
		`mcpvisor_tool_calls_total{outcome="tool_error",server="alpha"} 1`,
		`mcpvisor_tool_calls_total{outcome="timeout",server="alpha"} 1`,
		`mcpvisor_tool_calls_total{outcome="unknown_server",server=""} 1`,
		`mcpvisor_tool_calls_total{outcome="bad_name",server=""} 1`,
		`mcpvisor_tool_call_duration_seconds_count{server="alpha"} 4`,
		`mcpvisor_build_info{version="`+actors.Version+`"} 1`,
	)
	for _, l := range strings.Split(text, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "mcpvisor_") {
			t.Errorf("metric %q is not prefixed mcpvisor_", l)
		}
	}
}

// The reconcile histogram measures from a plan to every server it started
// or stopped having settled; dry runs and keep-only plans are not counted.
func TestMetrics_ReconcileDurationFromEvents(t *testing.T) {
	t.Parallel()
	m := httpapi.NewMetrics(&httpapitest.Fleet{})
	at := func(ms int, ev messages.Event) *messages.Envelope {
		return &messages.Envelope{Time: t0.Add(time.Duration(ms) * time.Millisecond), Event: ev}
	}
	state := func(server string, to messages.State) *messages.ServerStateChanged {
		return &messages.ServerStateChanged{Server: server, To: to}
	}
	for _, env := range []*messages.Envelope{
		at(0, &messages.PlanComputed{Generation: 1, Steps: []messages.PlanStep{
			{Server: "alpha", Action: messages.ActionStart}, {Server: "beta", Action: messages.ActionStop}, {Server: "gamma", Action: messages.ActionKeep},
		}}),
		at(0, state("alpha", messages.StateStarting)),
		at(0, state("beta", messages.StateStopping)),
		at(1, &messages.PlanComputed{Generation: 1, DryRun: true, Steps: []messages.PlanStep{{Server: "delta", Action: messages.ActionStart}}}),
		at(2, &messages.PlanComputed{Generation: 1, Steps: []messages.PlanStep{{Server: "gamma", Action: messages.ActionKeep}}}),
		at(400, state("beta", messages.StateStopped)),
		at(1500, state("alpha", messages.StateReady)), // the first plan settles: 1.5s
		at(2000, state("delta", messages.StateReady)),
	} {
		m.ObserveEvent(env)
	}
	wantLines(t, scrape(t, m.Handler()),
		`mcpvisor_reconcile_duration_seconds_count 1`,
		`mcpvisor_reconcile_duration_seconds_sum 1.5`,
		`mcpvisor_events_total{type="plan.computed"} 3`,
		`mcpvisor_events_total{type="server.state"} 5`,
	)
}
