package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// supervised starts a real Supervisor on a config of example servers and
// serves the API over it.
func supervised(t *testing.T, servers map[string]testkit.Server, opts actors.Options) (*httptest.Server, *actors.Supervisor) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, servers)
	opts.ConfigPaths = []string{cfg}
	opts.Logger = zaptest.NewLogger(t)
	opts.DisableWatch = true
	if opts.StopGrace == 0 {
		opts.StopGrace = time.Second
	}
	sup, err := actors.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	ts, _ := api(t, httpapi.Options{Fleet: sup})
	return ts, sup
}

// waitState reads the event stream from the start until server reaches
// state.
func waitState(t *testing.T, ts *httptest.Server, server string, state messages.State) {
	t.Helper()
	_, r := openEvents(actorstest.Context(t), t, ts.URL+"/api/v1/events?since=0")
	for {
		ev := r.nextEvent()
		var data httpapi.StreamEvent
		if err := json.Unmarshal([]byte(ev.data), &data); err != nil {
			t.Fatal(err)
		}
		env, err := httpapi.DecodeEvent(data)
		if err != nil {
			t.Fatal(err)
		}
		if sc, ok := env.Event.(*messages.ServerStateChanged); ok && sc.Server == server && sc.To == state {
			return
		}
	}
}

// The API over a real Supervisor and real example servers: status, tools,
// calls and their error codes, resync.
func TestSupervisor_ServedThroughTheAPI(t *testing.T) {
	t.Parallel()
	ts, _ := supervised(t, map[string]testkit.Server{
		"alpha": testkit.Example(bin, "--name", "alpha"),
		"hung":  testkit.Example(bin, "--init-hang"),
		// A call of a starting server (hung) waits for it, up to its connect
		// timeout; one of a failed server is 503 at once.
		"down": {Command: bin, Args: []string{"example-server", "--init-fail"}, Restart: "never"},
	}, actors.Options{CallTimeout: 300 * time.Millisecond})
	waitState(t, ts, "alpha", messages.StateReady)
	waitState(t, ts, "down", messages.StateFailed)

	var st messages.Status
	request(t, ts, http.MethodGet, "/api/v1/status", "").json(t, &st)
	if len(st.Servers) != 3 || st.Servers[0].Name != "alpha" || st.Servers[0].State != messages.StateReady || st.Servers[0].PID == 0 || st.Servers[0].Tools != 7 {
		t.Fatalf("status = %+v, want alpha ready with a pid and 7 tools", st)
	}
	if st.Servers[2].Name != "hung" || st.Servers[2].State != messages.StateStarting {
		t.Fatalf("hung = %+v, want starting", st.Servers[2])
	}
	if len(st.ConfigFiles) != 1 || !filepath.IsAbs(st.ConfigFiles[0]) || filepath.Base(st.ConfigFiles[0]) != ".mcp.json" {
		t.Fatalf("configFiles = %q, want the one config file, resolved", st.ConfigFiles)
	}

	var tools httpapi.ToolList
	request(t, ts, http.MethodGet, "/api/v1/tools", "").json(t, &tools)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "alpha__echo") || tools.Tools[0].InputSchema == nil {
		t.Fatalf("tools = %v, want alpha__echo among them, with schemas", names)
	}

	res := request(t, ts, http.MethodPost, "/api/v1/tools/call", `{"name": "alpha__echo", "arguments": {"message": "hi there"}}`)
	var out httpapi.CallResult
	res.json(t, &out)
	if res.code != http.StatusOK || out.IsError || len(out.Content) != 1 || !strings.Contains(string(out.Content[0]), `"text":"hi there"`) {
		t.Fatalf("echo = %d %s", res.code, res.body)
	}
	res = request(t, ts, http.MethodPost, "/api/v1/tools/call", `{"name": "alpha__fail"}`)
	res.json(t, &out)
	if res.code != http.StatusOK || !out.IsError {
		t.Fatalf("fail = %d %s, want 200 with isError", res.code, res.body)
	}
	for body, want := range map[string]int{
		`{"name": "alpha__nope"}`:                              http.StatusNotFound,
		`{"name": "zeta__echo"}`:                               http.StatusNotFound,
		`{"name": "no-separator"}`:                             http.StatusBadRequest,
		`{"name": "down__echo"}`:                               http.StatusServiceUnavailable,
		`{"name": "alpha__sleep", "arguments": {"ms": 60000}}`: http.StatusGatewayTimeout,
	} {
		if res := request(t, ts, http.MethodPost, "/api/v1/tools/call", body); res.code != want {
			t.Errorf("%s = %d %s, want %d", body, res.code, res.body, want)
		}
	}

	var dry httpapi.ResyncResult
	request(t, ts, http.MethodPost, "/api/v1/resync", `{"dryRun": true}`).json(t, &dry)
	if !dry.DryRun || dry.Status != nil || !slices.Contains(dry.Plan, messages.PlanStep{Server: "alpha", Action: messages.ActionKeep, Reason: "unchanged"}) {
		t.Fatalf("dry run = %+v, want alpha kept unchanged and no status", dry)
	}
}

// A resync retries a failed server and answers with its outcome and the
// status after it.
func TestSupervisor_ResyncAnswersOutcomeAndStatus(t *testing.T) {
	t.Parallel()
	ts, _ := supervised(t, map[string]testkit.Server{
		"alpha": testkit.Example(bin, "--name", "alpha"),
		"bad":   {Command: bin, Args: []string{"example-server", "--init-fail"}, Restart: "never"},
	}, actors.Options{})
	waitState(t, ts, "alpha", messages.StateReady)
	waitState(t, ts, "bad", messages.StateFailed)

	var got httpapi.ResyncResult
	res := request(t, ts, http.MethodPost, "/api/v1/resync", "")
	res.json(t, &got)
	if res.code != http.StatusOK || !got.Complete || got.Status == nil {
		t.Fatalf("resync = %d %s, want 200, complete, with a status", res.code, res.body)
	}
	if !slices.ContainsFunc(got.Outcomes, func(o messages.ServerOutcome) bool {
		return o.Server == "bad" && o.State == messages.StateFailed && o.Error != ""
	}) {
		t.Fatalf("outcomes = %+v, want bad failed with its error", got.Outcomes)
	}
}

// A failed Supervisor is unhealthy: /healthz answers 503 with the reason,
// status says it, calls fail with 503, and the event stream carries the
// supervisor.failed event.
func TestSupervisor_FailureIsUnhealthy(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	ts, sup := supervised(t, map[string]testkit.Server{}, actors.Options{Environ: func() []string { return nil }})
	if res := request(t, ts, http.MethodGet, "/healthz", ""); res.code != http.StatusOK {
		t.Fatalf("healthz before = %d %s", res.code, res.body)
	}
	_, r := openEvents(ctx, t, ts.URL+"/api/v1/events?since=0")
	actorstest.Send(t, sup, actorstest.Fleet, (*messages.DesiredState)(nil))
	for failed := false; !failed; {
		var data httpapi.StreamEvent
		if err := json.Unmarshal([]byte(r.nextEvent().data), &data); err != nil {
			t.Fatal(err)
		}
		env, err := httpapi.DecodeEvent(data)
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := env.Event.(*messages.SupervisorFailed); ok {
			if f.Actor != "fleet" {
				t.Fatalf("failed actor %q, want fleet", f.Actor)
			}
			failed = true
		}
	}
	<-sup.Done()

	res := request(t, ts, http.MethodGet, "/healthz", "")
	var body map[string]string
	if err := json.Unmarshal(res.body, &body); err != nil {
		t.Fatal(err)
	}
	if res.code != http.StatusServiceUnavailable || body["status"] != "failed" || !strings.Contains(body["error"], "the fleet actor failed: panic: ") {
		t.Fatalf("healthz after = %d %s, want 503 with the reason", res.code, res.body)
	}
	var st messages.Status
	if res := request(t, ts, http.MethodGet, "/api/v1/status", ""); json.Unmarshal(res.body, &st) != nil || st.Failed != body["error"] {
		t.Fatalf("status = %s, want failed: %q", res.body, body["error"])
	}
}
