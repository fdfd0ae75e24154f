package actors_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// An http entry (typed or inferred from url) whose server speaks only the
// older HTTP+SSE transport is tried as streamable HTTP, refused with a
// 4xx, and connected over HTTP+SSE, as the MCP specification's
// backwards-compatibility section says; status and the ready event show
// the transport that worked. A streamable server stays on streamable HTTP.
func TestSession_HTTPFallsBackToSSEForAnOlderServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	older := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return toolServer(tool("old", "o"))() }, nil))
	t.Cleanup(older.Close)
	newer := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return toolServer(tool("new", "n"))() }, nil))
	t.Cleanup(newer.Close)

	path := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, path, map[string]any{
		"untyped": map[string]any{"url": older.URL},
		"typed":   map[string]any{"type": "http", "url": older.URL},
		"newer":   map[string]any{"url": newer.URL},
	})
	noDial := func(messages.ServerSpec) (mcp.Transport, error) { return nil, nil }
	sup, rec := startWithDial(t, mClock, noDial, actors.Options{ConfigPaths: []string{path}})
	for _, name := range []string{"untyped", "typed"} {
		_, ready := rec.WaitState(ctx, 0, name, messages.StateReady)
		if !strings.Contains(ready.Reason, "over sse") {
			t.Errorf("%s ready with reason %q, want the fallback named", name, ready.Reason)
		}
		res, err := sup.CallTool(ctx, name+"__old", map[string]any{})
		if err != nil || testkit.Text(res) != "old" {
			t.Fatalf("call %s__old over the fallback: %v %v", name, res, err)
		}
	}
	_, ready := rec.WaitState(ctx, 0, "newer", messages.StateReady)
	if strings.Contains(ready.Reason, "over") {
		t.Errorf("newer ready with reason %q, want no fallback", ready.Reason)
	}
	want := map[string]messages.Transport{"untyped": messages.TransportSSE, "typed": messages.TransportSSE, "newer": messages.TransportHTTP}
	for _, s := range sup.Status().Servers {
		if s.Transport != want[s.Name] {
			t.Errorf("%s shows transport %q, want %q", s.Name, s.Transport, want[s.Name])
		}
	}
}
