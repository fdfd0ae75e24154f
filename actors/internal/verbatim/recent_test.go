package verbatim_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
)

// schema is what the eliciting server asks for, its keys out of
// alphabetical order: the go-sdk client's typed params sort them.
const schema = `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"boolean"}}}`

func elicitingServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "who?", RequestedSchema: json.RawMessage(schema)})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil
		})
	return srv
}

// ask connects a client over tr, whose requests tr keeps in kept, calls
// the tool, and returns the requestedSchema its elicitation handler found
// in kept for the params it got.
func ask(t *testing.T, ctx context.Context, tr mcp.Transport, kept *verbatim.Recent) string {
	t.Helper()
	found := make(chan json.RawMessage, 1)
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			found <- verbatim.Field(verbatim.Take(kept, "elicitation/create", req.Params), "requestedSchema")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	// 2025-11-25: a server elicits on the connection (on 2026-07-28 it
	// returns input requests).
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"}); err != nil {
		t.Fatal(err)
	}
	select {
	case raw := <-found:
		if again := verbatim.Take(kept, "elicitation/create", &mcp.ElicitParams{Message: "who?"}); again != nil {
			t.Errorf("Take found %s for other params", again)
		}
		return string(raw)
	default:
		t.Fatal("the client was never asked")
		return ""
	}
}

// The params of a server's elicitation are kept as the connection read
// them, and found by the typed params the go-sdk decoded from them: on a
// connection, and on streamable HTTP's SSE streams.
func TestTransport_KeepsElicitationParams(t *testing.T) {
	t.Parallel()
	t.Run("connection", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := elicitingServer().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		var kept verbatim.Recent
		if got := ask(t, ctx, verbatim.Transport(ct, &kept), &kept); got != schema {
			t.Errorf("kept requestedSchema %s, want %s as the server sent it", got, schema)
		}
	})
	t.Run("streamable HTTP", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		srv := elicitingServer()
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		defer hs.Close()
		var kept verbatim.Recent
		tr := verbatim.Transport(&mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, &kept)
		if got := ask(t, ctx, tr, &kept); got != schema {
			t.Errorf("kept requestedSchema %s, want %s as the server sent it", got, schema)
		}
	})
}
