package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// The upstream errors of errorsServer, one per kind of request the
// gateway relays: each has its own code, message and data, which a
// client must get unchanged through the gateway (issue 24, item 4: they
// came back as -32603, or as an isError result "upstream error: calling
// ...").
var (
	badArgument   = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "n must be positive", Data: json.RawMessage(`{"field":"n","got":-1}`)}
	toolBroke     = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "database is locked", Data: json.RawMessage(`{"retryAfterMs":250}`)}
	promptMissing = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "argument \"topic\" is required", Data: json.RawMessage(`{"argument":"topic"}`)}
	completeBad   = &jsonrpc.Error{Code: -32099, Message: "completion backend down", Data: json.RawMessage(`"try later"`)}
	subscribeNo   = &jsonrpc.Error{Code: -32001, Message: "subscriptions are disabled for file:///data/log", Data: json.RawMessage(`{"uri":"file:///data/log"}`)}
)

// errorsServer fails every request with a JSON-RPC error of its own; a
// resource it lists is not found when read (the go-sdk's not-found
// error, which names the URI in its data). It speaks 2025-11-25, as the
// servers on npm do, where a refused resources/subscribe is an answer.
func errorsServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "errors", Version: "1"}, &mcp.ServerOptions{
		SupportedProtocolVersions: []string{"2025-11-25"},
		CompletionHandler:         func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) { return nil, completeBad },
		SubscribeHandler:          func(context.Context, *mcp.SubscribeRequest) error { return subscribeNo },
		UnsubscribeHandler:        func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	schema := map[string]any{"type": "object"}
	srv.AddTool(&mcp.Tool{Name: "bad", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, badArgument
	})
	srv.AddTool(&mcp.Tool{Name: "broken", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, toolBroke
	})
	srv.AddPrompt(&mcp.Prompt{Name: "summary"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, promptMissing
	})
	srv.AddResource(&mcp.Resource{URI: "file:///data/gone", Name: "gone"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	})
	srv.AddResource(&mcp.Resource{URI: "file:///data/log", Name: "log"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///data/log", Text: "x"}}}, nil
	})
	return srv
}

// connectDirect connects a client straight to a fresh errorsServer.
func connectDirect(t *testing.T, ctx context.Context) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := errorsServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// wireError is the JSON-RPC error a request ended with, as its client
// decoded it.
func wireError(t *testing.T, what string, err error) jsonrpc.Error {
	t.Helper()
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		t.Fatalf("%s: got %v, want a JSON-RPC error", what, err)
	}
	return *wire
}

// Every relayed kind of request (tools/call, prompts/get, resources/read,
// completion/complete, resources/subscribe) answers with the upstream's
// JSON-RPC error, its code, message and data as a direct client gets
// them; a not-found read keeps the URI in its data.
func TestGateway_UpstreamErrorsPassThroughUnchanged(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := startRelayRig(t, ctx, nil, errorsServer)
	via := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{}, "demo__bad", "demo__broken")
	direct := connectDirect(t, ctx)

	requests := []struct {
		name string
		want *jsonrpc.Error
		do   func(cs *mcp.ClientSession, prefix string) error
	}{
		{"tools/call invalid params", badArgument, func(cs *mcp.ClientSession, prefix string) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: prefix + "bad"})
			return err
		}},
		{"tools/call internal error", toolBroke, func(cs *mcp.ClientSession, prefix string) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: prefix + "broken"})
			return err
		}},
		{"prompts/get", promptMissing, func(cs *mcp.ClientSession, prefix string) error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: prefix + "summary"})
			return err
		}},
		{"resources/read not found", nil, func(cs *mcp.ClientSession, _ string) error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///data/gone"})
			return err
		}},
		{"completion/complete", completeBad, func(cs *mcp.ClientSession, prefix string) error {
			_, err := cs.Complete(ctx, &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: prefix + "summary"},
				Argument: mcp.CompleteParamsArgument{Name: "topic", Value: "a"},
			})
			return err
		}},
		{"resources/subscribe", subscribeNo, func(cs *mcp.ClientSession, _ string) error {
			return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///data/log"})
		}},
	}
	for _, req := range requests {
		got := wireError(t, req.name+" directly", req.do(direct, ""))
		if req.want != nil {
			if diff := cmp.Diff(*req.want, got); diff != "" {
				t.Errorf("%s directly: the server's error is not what it returned (-want +got):\n%s", req.name, diff)
			}
		}
		via := wireError(t, req.name+" through the gateway", req.do(via, "demo__"))
		if diff := cmp.Diff(got, via); diff != "" {
			t.Errorf("%s: the gateway's error differs from the server's (-direct +gateway):\n%s", req.name, diff)
		}
	}
}
