package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
)

// A call reaches the fleet with its name and raw arguments, and the MCP
// result comes back with isError always present.
func TestCall_ReturnsTheResult(t *testing.T) {
	t.Parallel()
	type call struct {
		name string
		args any
	}
	calls := make(chan call, 1)
	fleet := &httpapitest.Fleet{CallFunc: func(_ context.Context, name string, args any) (*mcp.CallToolResult, error) {
		calls <- call{name, args}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "hi"}},
			StructuredContent: map[string]any{"echoed": "hi"},
		}, nil
	}}
	ts, _ := api(t, httpapi.Options{Fleet: fleet})

	res := request(t, ts, http.MethodPost, "/api/v1/tools/call", `{"name": "alpha__echo", "arguments": {"message": "hi", "n": 12345678901234567890}}`)
	if res.code != http.StatusOK {
		t.Fatalf("status = %d %s, want 200", res.code, res.body)
	}
	golden(t, "call.json", indent(t, res.body))
	got := <-calls
	if args, ok := got.args.(json.RawMessage); !ok || got.name != "alpha__echo" || string(args) != `{"message": "hi", "n": 12345678901234567890}` {
		t.Fatalf("fleet got %q %s, want the name and the arguments as sent", got.name, got.args)
	}
}

// A tool that reports failure is a successful call: 200 with isError.
func TestCall_ToolErrorIsStatus200(t *testing.T) {
	t.Parallel()
	fleet := &httpapitest.Fleet{CallFunc: func(context.Context, string, any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "this tool always fails"}}}, nil
	}}
	ts, _ := api(t, httpapi.Options{Fleet: fleet})
	res := request(t, ts, http.MethodPost, "/api/v1/tools/call", `{"name": "alpha__fail"}`)
	var got httpapi.CallResult
	res.json(t, &got)
	if res.code != http.StatusOK || !got.IsError || len(got.Content) != 1 {
		t.Fatalf("= %d %s, want 200 with isError and the text", res.code, res.body)
	}
}

// Absent or null arguments are sent as an empty object.
func TestCall_MissingArgumentsAreAnEmptyObject(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"name": "a__b"}`, `{"name": "a__b", "arguments": null}`} {
		calls := make(chan any, 1)
		fleet := &httpapitest.Fleet{CallFunc: func(_ context.Context, _ string, args any) (*mcp.CallToolResult, error) {
			calls <- args
			return &mcp.CallToolResult{}, nil
		}}
		ts, _ := api(t, httpapi.Options{Fleet: fleet})
		res := request(t, ts, http.MethodPost, "/api/v1/tools/call", body)
		if got := <-calls; res.code != http.StatusOK || fmt.Sprintf("%s", got) != "{}" {
			t.Errorf("%s: = %d, fleet got %s; want 200 and {}", body, res.code, got)
		}
		if want := `{"content":[],"isError":false}` + "\n"; string(res.body) != want {
			t.Errorf("%s: body %s, want %s", body, res.body, want)
		}
	}
}

// Each supervisor error maps to its status code, with the error's text.
func TestCall_ErrorsMapToStatusCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		code int
	}{
		{fmt.Errorf("%w: %q", actors.ErrBadToolName, "nope"), http.StatusBadRequest},
		{fmt.Errorf("%w: %q", actors.ErrUnknownServer, "zeta"), http.StatusNotFound},
		{fmt.Errorf("%w: %q has no tool %q", actors.ErrUnknownTool, "alpha", "x"), http.StatusNotFound},
		{fmt.Errorf("%w: %q", actors.ErrNotReady, "alpha"), http.StatusServiceUnavailable},
		{actors.ErrClosed, http.StatusServiceUnavailable},
		{fmt.Errorf("%w: the fleet actor failed: panic: x", actors.ErrFailed), http.StatusServiceUnavailable},
		{fmt.Errorf("%w: %w", actors.ErrCanceled, context.Canceled), http.StatusServiceUnavailable},
		{fmt.Errorf("%w: connection reset", actors.ErrUpstream), http.StatusBadGateway},
		{fmt.Errorf("%w after 60s", actors.ErrCallTimeout), http.StatusGatewayTimeout},
		{fmt.Errorf("something else"), http.StatusInternalServerError},
	} {
		fleet := &httpapitest.Fleet{CallFunc: func(context.Context, string, any) (*mcp.CallToolResult, error) { return nil, tc.err }}
		ts, _ := api(t, httpapi.Options{Fleet: fleet})
		res := request(t, ts, http.MethodPost, "/api/v1/tools/call", `{"name": "alpha__x"}`)
		if res.code != tc.code {
			t.Errorf("%v: status %d, want %d", tc.err, res.code, tc.code)
		}
		if got := res.errorText(t); got != tc.err.Error() {
			t.Errorf("%v: error %q, want the error's text", tc.err, got)
		}
	}
}

// Bodies the API cannot use are answered 4xx and never reach the fleet.
func TestCall_BadBodiesAre4xx(t *testing.T) {
	t.Parallel()
	var called atomic.Bool
	fleet := &httpapitest.Fleet{CallFunc: func(context.Context, string, any) (*mcp.CallToolResult, error) {
		called.Store(true)
		return &mcp.CallToolResult{}, nil
	}}
	ts, _ := api(t, httpapi.Options{Fleet: fleet, MaxBodyBytes: 64})
	for _, tc := range []struct {
		name, body string
		headers    []string
		code       int
		mentions   string
	}{
		{"not JSON", `{"name": `, nil, http.StatusBadRequest, "bad JSON"},
		{"empty", ``, nil, http.StatusBadRequest, "name is required"},
		{"no name", `{"arguments": {}}`, nil, http.StatusBadRequest, "name is required"},
		{"unknown field", `{"name": "a__b", "args": {}}`, nil, http.StatusBadRequest, "unknown field"},
		{"arguments not an object", `{"name": "a__b", "arguments": [1]}`, nil, http.StatusBadRequest, "must be a JSON object"},
		{"two values", `{"name": "a__b"} {}`, nil, http.StatusBadRequest, "more than one"},
		{"too big", `{"name": "a__b", "arguments": {"m": "` + strings.Repeat("x", 100) + `"}}`, nil, http.StatusRequestEntityTooLarge, "larger than 64 bytes"},
		{"form post", `name=a__b`, []string{"Content-Type: application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType, "application/json"},
		{"text/plain", `{"name": "a__b"}`, []string{"Content-Type: text/plain"}, http.StatusUnsupportedMediaType, "application/json"},
	} {
		res := request(t, ts, http.MethodPost, "/api/v1/tools/call", tc.body, tc.headers...)
		if res.code != tc.code || !strings.Contains(res.errorText(t), tc.mentions) {
			t.Errorf("%s: = %d %s, want %d mentioning %q", tc.name, res.code, res.body, tc.code, tc.mentions)
		}
	}
	if called.Load() {
		t.Error("a bad request reached the fleet")
	}
}
