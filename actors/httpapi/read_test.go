package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// The status body is messages.Status's JSON as it is: the golden file pins
// every field name (docs/api.md documents them).
func TestStatus_ServesTheSnapshot(t *testing.T) {
	t.Parallel()
	fleet := &httpapitest.Fleet{}
	fleet.SetStatus(sampleStatus())
	ts, _ := api(t, httpapi.Options{Fleet: fleet})

	res := request(t, ts, http.MethodGet, "/api/v1/status", "")
	if res.code != http.StatusOK || res.header.Get("Content-Type") != "application/json" {
		t.Fatalf("status = %d %q, want 200 application/json", res.code, res.header.Get("Content-Type"))
	}
	golden(t, "status.json", indent(t, res.body))
	var got messages.Status
	res.json(t, &got)
	if diff := cmp.Diff(sampleStatus(), got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("status round trip (-want +got):\n%s", diff)
	}
}

// Arrays are never null, even when the source has nil slices.
func TestStatus_ArraysAreNeverNull(t *testing.T) {
	t.Parallel()
	fleet := &httpapitest.Fleet{}
	fleet.SetStatus(messages.Status{Servers: []messages.ServerStatus{{Name: "alpha", State: messages.StateStarting}}})
	ts, _ := api(t, httpapi.Options{Fleet: fleet})

	res := request(t, ts, http.MethodGet, "/api/v1/status", "")
	var raw struct {
		Servers []struct {
			StderrTail *[]string `json:"stderrTail"`
		} `json:"servers"`
		ConfigErrors *[]any `json:"configErrors"`
	}
	res.json(t, &raw)
	if raw.ConfigErrors == nil || len(raw.Servers) != 1 || raw.Servers[0].StderrTail == nil {
		t.Fatalf("body %s has a null array", res.body)
	}

	fleet.SetStatus(messages.Status{})
	res = request(t, ts, http.MethodGet, "/api/v1/status", "")
	want := `{"generation":0,"observedGeneration":0,"servers":[],"configErrors":[]}` + "\n"
	if string(res.body) != want {
		t.Fatalf("empty status = %s, want %s", res.body, want)
	}
}

// Tools are listed under their fleet-wide prefix__tool names.
func TestTools_ListsQualifiedNames(t *testing.T) {
	t.Parallel()
	fleet := &httpapitest.Fleet{}
	fleet.SetTools(sampleTools())
	ts, _ := api(t, httpapi.Options{Fleet: fleet})

	res := request(t, ts, http.MethodGet, "/api/v1/tools", "")
	if res.code != http.StatusOK {
		t.Fatalf("status = %d, want 200", res.code)
	}
	golden(t, "tools.json", indent(t, res.body))
	var got httpapi.ToolList
	res.json(t, &got)
	var names []string
	for _, tl := range got.Tools {
		names = append(names, tl.Name)
	}
	want := []string{"alpha__echo", "alpha__pid", "beta__tool__with__underscores"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
}

func TestTools_EmptyFleetIsAnEmptyList(t *testing.T) {
	t.Parallel()
	ts, _ := api(t, httpapi.Options{})
	res := request(t, ts, http.MethodGet, "/api/v1/tools", "")
	if want := `{"tools":[]}` + "\n"; string(res.body) != want {
		t.Fatalf("body = %s, want %s", res.body, want)
	}
}

func TestHealthz_AnswersOK(t *testing.T) {
	t.Parallel()
	ts, _ := api(t, httpapi.Options{})
	res := request(t, ts, http.MethodGet, "/healthz", "")
	if res.code != http.StatusOK || string(res.body) != `{"status":"ok"}`+"\n" {
		t.Fatalf("healthz = %d %s", res.code, res.body)
	}
}

// Unknown paths and wrong methods answer JSON errors too.
func TestRoutes_UnknownPathAndWrongMethod(t *testing.T) {
	t.Parallel()
	ts, _ := api(t, httpapi.Options{})
	for _, tc := range []struct {
		method, path string
		code         int
		allow        string
	}{
		{http.MethodGet, "/api/v1/nope", http.StatusNotFound, ""},
		{http.MethodGet, "/status", http.StatusNotFound, ""},
		{http.MethodPost, "/api/v1/status", http.StatusMethodNotAllowed, "GET"},
		{http.MethodDelete, "/api/v1/tools", http.StatusMethodNotAllowed, "GET"},
		{http.MethodGet, "/api/v1/tools/call", http.StatusMethodNotAllowed, "POST"},
		{http.MethodGet, "/api/v1/resync", http.StatusMethodNotAllowed, "POST"},
		{http.MethodPost, "/api/v1/events", http.StatusMethodNotAllowed, "GET"},
		{http.MethodPost, "/metrics", http.StatusMethodNotAllowed, "GET"},
	} {
		res := request(t, ts, tc.method, tc.path, "")
		if res.code != tc.code || res.header.Get("Allow") != tc.allow {
			t.Errorf("%s %s = %d Allow %q, want %d Allow %q", tc.method, tc.path, res.code, res.header.Get("Allow"), tc.code, tc.allow)
		}
		res.errorText(t)
	}
}

// A fleet that is no longer supervised (failed or shutting down) is
// unhealthy: 503 with the reason.
func TestHealthz_FailedFleetIs503(t *testing.T) {
	t.Parallel()
	fleet := &httpapitest.Fleet{}
	fleet.SetErr(fmt.Errorf("%w: the config actor failed: panic: boom", actors.ErrFailed))
	ts, _ := api(t, httpapi.Options{Fleet: fleet})
	res := request(t, ts, http.MethodGet, "/healthz", "")
	if want := `{"error":"supervisor failed: the config actor failed: panic: boom","status":"failed"}` + "\n"; res.code != http.StatusServiceUnavailable || string(res.body) != want {
		t.Fatalf("healthz = %d %s, want 503 %s", res.code, res.body, want)
	}
}
