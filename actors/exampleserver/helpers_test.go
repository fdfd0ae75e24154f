package exampleserver_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
)

// The protocols a go-sdk client speaks to the example server: the legacy
// initialize handshake (what stateful HTTP upstreams and most clients
// use) and the stateless 2026-07-28 (what the go-sdk picks over stdio).
const (
	legacy    = "2025-11-25"
	stateless = "2026-07-28"
)

var protocols = []string{legacy, stateless}

// connect serves srv to a go-sdk client with copts over an in-memory
// pipe, on protocol pv; the session ends with the test.
func connect(t *testing.T, ctx context.Context, srv *mcp.Server, copts *mcp.ClientOptions, pv string) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: pv})
	if err != nil {
		_ = ss.Close()
		t.Fatalf("client connect: %v", err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != pv {
		t.Fatalf("negotiated protocol %s, want %s", got, pv)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// serve is connect for a server built from options.
func serve(t *testing.T, ctx context.Context, o exampleserver.Options, copts *mcp.ClientOptions, pv string) *mcp.ClientSession {
	t.Helper()
	return connect(t, ctx, exampleserver.New(o), copts, pv)
}

func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolParams) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("call %s: %v", params.Name, err)
	}
	return res
}

// resultText is a tool result's text, and whether it is an error.
func resultText(t *testing.T, res *mcp.CallToolResult) (string, bool) {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d content blocks, want 1: %+v", len(res.Content), res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("result content is %T, want text", res.Content[0])
	}
	return tc.Text, res.IsError
}

func mustText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	text, isErr := resultText(t, res)
	if isErr {
		t.Fatalf("tool failed: %s", text)
	}
	return text
}

func toolNames(t *testing.T, ctx context.Context, cs *mcp.ClientSession) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		names[tool.Name] = true
	}
	return names
}

// receive takes the next value from ch, failing the test at ctx's end.
func receive[T any](t *testing.T, ctx context.Context, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatalf("no %s: %v", what, ctx.Err())
		panic("unreachable")
	}
}
