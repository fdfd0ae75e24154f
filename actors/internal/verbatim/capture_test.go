package verbatim_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
)

// structured is what the test server's tool answers, its keys out of
// alphabetical order: the go-sdk client's typed result sorts them.
const structured = `{"zeta":1,"alpha":{"y":true,"b":false}}`

func server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "order", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: json.RawMessage(structured)}, nil
		})
	return srv
}

// call calls the tool over cs under a capture, and returns the captured
// result (nil if none).
func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, capture bool) json.RawMessage {
	t.Helper()
	var slot *verbatim.Slot
	if capture {
		ctx, slot = verbatim.Capture(ctx)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "order"})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	return slot.Result("tools/call")
}

func checkCaptured(t *testing.T, raw json.RawMessage) {
	t.Helper()
	if got := string(verbatim.Field(raw, "structuredContent")); got != structured {
		t.Errorf("captured structuredContent %s (result %s), want %s as the server sent it", got, raw, structured)
	}
}

func TestTransport_CapturesAConnectionsResults(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cs := connectCapturing(t, ctx)

	checkCaptured(t, call(t, ctx, cs, true))
	if raw := call(t, ctx, cs, false); raw != nil {
		t.Errorf("a call without a capture recorded %s", raw)
	}
}

// A streamable HTTP connection's results are captured from its HTTP
// client's response bodies: a JSON body, or the SSE stream of the call.
func TestTransport_CapturesStreamableHTTPResults(t *testing.T) {
	t.Parallel()
	for _, json := range []bool{false, true} {
		name := map[bool]string{false: "sse", true: "json"}[json]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			srv := server()
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: json})
			hs := httptest.NewServer(h)
			defer hs.Close()
			tr := verbatim.Transport(&mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
			if _, ok := tr.(*mcp.StreamableClientTransport); !ok {
				t.Fatalf("Transport turned a streamable HTTP transport into a %T: the go-sdk needs its own type", tr)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, tr, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			raw := call(t, ctx, cs, true)
			checkCaptured(t, raw)
			if !strings.Contains(string(raw), `"content"`) {
				t.Errorf("captured %s, want the whole result", raw)
			}
		})
	}
}

// Only the last call's result is a request's: one answered by a later
// call of another method has no bytes of its own.
func TestSlot_ResultIsTheLastCalls(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cs := connectCapturing(t, ctx)
	ctx, slot := verbatim.Capture(ctx)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "order"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if raw := slot.Result("tools/call"); raw != nil {
		t.Errorf("Result(tools/call) after a tools/list = %s, want nil", raw)
	}
	if raw := slot.Result("tools/list"); verbatim.Field(raw, "tools") == nil {
		t.Errorf("Result(tools/list) = %s, want the listing", raw)
	}
}

// connectCapturing connects a client, through a capturing Transport, to
// the test server in memory; both end with the test.
func connectCapturing(t *testing.T, ctx context.Context) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, verbatim.Transport(ct, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
