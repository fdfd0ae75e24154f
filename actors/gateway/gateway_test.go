package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/messages"
)

// The gateway starts empty but advertises tools.listChanged, so a client
// on either protocol is told when the first server's tools arrive; a
// changed description and a withdrawn tool are announced the same way.
func TestGateway_ToolChangesReachClients(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			h := startGateway(t, &fakeSource{})
			c := h.connectInMemory(ctx, p.pin)
			if got := c.cs.InitializeResult().ProtocolVersion; got != p.want {
				t.Fatalf("negotiated %q, want %q", got, p.want)
			}
			caps := c.cs.InitializeResult().Capabilities
			if caps == nil || caps.Tools == nil || !caps.Tools.ListChanged {
				t.Fatalf("capabilities %+v: tools.listChanged not advertised by an empty gateway", caps)
			}
			c.waitTools(ctx)

			h.toolsChanged("alpha", tool("alpha", "echo", "Echoes."), tool("alpha", "add", "Adds."))
			c.expectChange(ctx, "alpha__add", "alpha__echo")

			h.toolsChanged("beta", tool("beta", "echo", "Echoes."))
			c.expectChange(ctx, "alpha__add", "alpha__echo", "beta__echo")

			h.toolsChanged("alpha", tool("alpha", "echo", "Echoes, louder."), tool("alpha", "add", "Adds."))
			select {
			case <-c.changed:
			case <-ctx.Done():
				t.Fatal("no tools/list_changed after a description changed")
			}
			for {
				if descriptionOf(t, ctx, c, "alpha__echo") == "Echoes, louder." {
					break
				}
				select {
				case <-c.changed:
				case <-ctx.Done():
					t.Fatal("changed description never listed")
				}
			}

			h.toolsChanged("alpha", tool("alpha", "add", "Adds."))
			c.expectChange(ctx, "alpha__add", "beta__echo")

			h.toolsChanged("alpha") // alpha stopped or failed
			c.expectChange(ctx, "beta__echo")
		})
	}
}

func descriptionOf(t *testing.T, ctx context.Context, c *client, name string) string {
	t.Helper()
	res, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == name {
			return tl.Description
		}
	}
	t.Fatalf("%s not listed", name)
	return ""
}

// Tools that are ready before Run starts are loaded from the Source, with
// description, input schema and output schema passed through.
func TestGateway_LoadsSourceToolsOnRun(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	withOutput := tool("alpha", "sum", "Sums.")
	withOutput.OutputSchema = map[string]any{"type": "object", "properties": map[string]any{"sum": map[string]any{"type": "number"}}}
	withOutput.Title = "Sum"
	withOutput.Annotations = map[string]any{"readOnlyHint": true, "idempotentHint": true}
	h := startGateway(t, &fakeSource{tools: []messages.Tool{tool("alpha", "echo", "Echoes."), withOutput, tool("beta", "pid", "Pid.")}})
	c := h.connectInMemory(ctx, "")
	c.waitTools(ctx, "alpha__echo", "alpha__sum", "beta__pid")

	res, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name != "alpha__sum" {
			continue
		}
		if tl.Description != "Sums." || tl.Title != "Sum" {
			t.Errorf("description, title = %q, %q", tl.Description, tl.Title)
		}
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint || !tl.Annotations.IdempotentHint {
			t.Errorf("annotations = %+v, want the server's hints passed through", tl.Annotations)
		}
		if diff := cmp.Diff(withOutput.InputSchema, tl.InputSchema); diff != "" {
			t.Errorf("input schema (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(withOutput.OutputSchema, tl.OutputSchema); diff != "" {
			t.Errorf("output schema (-want +got):\n%s", diff)
		}
	}
	if diff := cmp.Diff([]string{"alpha__echo", "alpha__sum", "beta__pid"}, h.gw.Exposed()); diff != "" {
		t.Errorf("Exposed (-want +got):\n%s", diff)
	}
}

// A tool the SDK would panic on is skipped with a warning, its siblings
// are served, and a later fixed version of it is picked up. An output
// schema that is not a JSON object is dropped, the tool kept.
func TestGateway_BadSchemasSkippedWithoutPanic(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	h := startGateway(t, &fakeSource{})
	c := h.connectInMemory(ctx, "")

	noSchema := messages.Tool{Server: "alpha", Prefix: "alpha", Name: "noschema"}
	stringSchema := messages.Tool{Server: "alpha", Prefix: "alpha", Name: "string", InputSchema: map[string]any{"type": "string"}}
	notObject := messages.Tool{Server: "alpha", Prefix: "alpha", Name: "array", InputSchema: []any{"type", "object"}}
	// Valid JSON, type object, but an x-mcp-header on a non-primitive
	// property: only Server.AddTool itself refuses it (by panicking).
	badHeader := messages.Tool{Server: "alpha", Prefix: "alpha", Name: "header", InputSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"a": map[string]any{"type": "object", "x-mcp-header": "X-A"}},
	}}
	badOutput := tool("alpha", "badout", "Bad output schema.")
	badOutput.OutputSchema = "not a schema"
	noName := tool("alpha", "", "No name.")

	h.toolsChanged("alpha", noSchema, stringSchema, notObject, badHeader, badOutput, noName, tool("alpha", "echo", "Echoes."))
	c.expectChange(ctx, "alpha__badout", "alpha__echo")

	skipped := map[string]bool{}
	for _, e := range h.logs.FilterMessage("tool skipped").All() {
		skipped[e.ContextMap()["tool"].(string)] = true
	}
	for _, name := range []string{"noschema", "string", "array", "header", ""} {
		if !skipped[name] {
			t.Errorf("no %q warning for tool %q; skipped: %v", "tool skipped", name, skipped)
		}
	}
	if n := h.logs.FilterMessage("output schema dropped").Len(); n != 1 {
		t.Errorf("%d output schema warnings, want 1", n)
	}
	res, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == "alpha__badout" && tl.OutputSchema != nil {
			t.Errorf("alpha__badout output schema = %v, want none", tl.OutputSchema)
		}
	}

	fixed := tool("alpha", "string", "Fixed.")
	h.toolsChanged("alpha", fixed, tool("alpha", "echo", "Echoes."))
	c.expectChange(ctx, "alpha__echo", "alpha__string")
}

// Re-announcing a server's unchanged tools adds nothing (and so announces
// nothing); only real changes are applied.
func TestGateway_UnchangedToolsNotReadded(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	h := startGateway(t, &fakeSource{})
	c := h.connectInMemory(ctx, "")
	echo := tool("alpha", "echo", "Echoes.")
	h.toolsChanged("alpha", echo)
	c.expectChange(ctx, "alpha__echo")
	// Same tool again, as a fresh decode (equal, not identical, maps).
	var again messages.Tool
	raw, _ := json.Marshal(echo)
	if err := json.Unmarshal(raw, &again); err != nil {
		t.Fatal(err)
	}
	h.toolsChanged("alpha", again)
	// Barrier: Run handles events in order, so once beta is listed the
	// repeat of alpha was handled.
	h.toolsChanged("beta", tool("beta", "pid", "Pid."))
	c.expectChange(ctx, "alpha__echo", "beta__pid")
	updates := 0
	for _, e := range h.logs.FilterMessage("tools updated").All() {
		if e.ContextMap()["server"] == "alpha" {
			updates++
		}
	}
	if updates != 1 {
		t.Fatalf("alpha updated %d times, want 1 (an unchanged tool was re-added)", updates)
	}
}

// A call goes to the Source under its prefix__tool name with the client's
// raw arguments; the result passes through, except for the upstream
// server's serverInfo in _meta.
func TestGateway_CallRoutedAndResultPassedThrough(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			type call struct {
				name string
				args string
			}
			calls := make(chan call, 4)
			src := &fakeSource{
				tools: []messages.Tool{tool("alpha", "echo", "Echoes."), tool("alpha", "pid", "Pid.")},
				call: func(_ context.Context, name string, args any) (*mcp.CallToolResult, error) {
					c := call{name: name}
					if args != nil {
						raw, ok := args.(json.RawMessage)
						if !ok {
							return nil, fmt.Errorf("args are %T, want json.RawMessage", args)
						}
						c.args = string(raw)
					}
					calls <- c
					return &mcp.CallToolResult{
						Meta: mcp.Meta{
							mcp.MetaKeyServerInfo: map[string]any{"name": "upstream", "version": "9"},
							"example.com/trace":   "t-1",
						},
						Content:           []mcp.Content{&mcp.TextContent{Text: "hi"}},
						StructuredContent: map[string]any{"echo": "hi"},
					}, nil
				},
			}
			h := startGateway(t, src)
			c := h.connectInMemory(ctx, p.pin)
			c.waitTools(ctx, "alpha__echo", "alpha__pid")

			res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo", Arguments: map[string]any{"message": "hi"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := <-calls; got.name != "alpha__echo" || got.args != `{"message":"hi"}` {
				t.Fatalf("source got %+v, want alpha__echo with {\"message\":\"hi\"}", got)
			}
			if res.IsError || text(t, res) != "hi" {
				t.Fatalf("result = %+v", res)
			}
			if diff := cmp.Diff(map[string]any{"echo": "hi"}, res.StructuredContent); diff != "" {
				t.Errorf("structured content (-want +got):\n%s", diff)
			}
			if res.Meta["example.com/trace"] != "t-1" {
				t.Errorf("_meta %v lost the upstream's own key", res.Meta)
			}
			if info, ok := res.Meta[mcp.MetaKeyServerInfo].(map[string]any); ok && info["name"] != "mcpvisor" {
				t.Errorf("_meta serverInfo = %v, want the gateway's or none", info)
			}

			// No arguments: the Source gets none (upstream sends {}).
			if _, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__pid"}); err != nil {
				t.Fatal(err)
			}
			if got := <-calls; got.name != "alpha__pid" || (got.args != "" && got.args != "{}") {
				t.Fatalf("source got %+v, want alpha__pid with no arguments", got)
			}
		})
	}
}

// Each CallTool error becomes what docs/gateway.md promises: isError
// results for what the model can act on, JSON-RPC errors otherwise.
func TestGateway_CallErrorsMapped(t *testing.T) {
	t.Parallel()
	upstreamWire := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "upstream says: bad params"}
	tests := []struct {
		name    string
		err     error
		isError string // substring of the isError result's text
		code    int64  // or the JSON-RPC error code
	}{
		{name: "not ready", err: fmt.Errorf("%w: %q", actors.ErrNotReady, "alpha"), isError: `server "alpha" is not ready`},
		{name: "timeout", err: fmt.Errorf("%w after 1s", actors.ErrCallTimeout), isError: "tool call timed out after 1s"},
		{name: "upstream crash", err: fmt.Errorf("%w: %w", actors.ErrUpstream, io.EOF), isError: `server "alpha" failed the call`},
		{name: "upstream json-rpc error", err: fmt.Errorf("%w: %w", actors.ErrUpstream, upstreamWire), code: jsonrpc.CodeInvalidParams},
		{name: "unknown server", err: fmt.Errorf("%w: %q", actors.ErrUnknownServer, "alpha"), code: jsonrpc.CodeInvalidParams},
		{name: "unknown tool", err: fmt.Errorf("%w: nope", actors.ErrUnknownTool), code: jsonrpc.CodeInvalidParams},
		{name: "closed", err: actors.ErrClosed, code: jsonrpc.CodeInternalError},
		{name: "other", err: errors.New("boom"), code: jsonrpc.CodeInternalError},
	}
	ctx := actorstest.Context(t)
	errs := map[string]error{}
	for _, tt := range tests {
		errs[tt.name] = tt.err
	}
	src := &fakeSource{
		tools: []messages.Tool{tool("alpha", "echo", "Echoes.")},
		call: func(ctx context.Context, _ string, args any) (*mcp.CallToolResult, error) {
			var in struct{ Message string }
			_ = json.Unmarshal(args.(json.RawMessage), &in)
			return nil, errs[in.Message]
		},
	}
	h := startGateway(t, src)
	c := h.connectInMemory(ctx, "")
	c.waitTools(ctx, "alpha__echo")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo", Arguments: map[string]any{"message": tt.name}})
			if tt.isError != "" {
				if err != nil {
					t.Fatalf("err = %v, want an isError result", err)
				}
				if !res.IsError || !strings.Contains(text(t, res), tt.isError) {
					t.Fatalf("result = %+v, want isError containing %q", res, tt.isError)
				}
				return
			}
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) || wire.Code != tt.code {
				t.Fatalf("err = %v (res %+v), want JSON-RPC error %d", err, res, tt.code)
			}
			if tt.err == upstreamWire || errors.Is(tt.err, upstreamWire) {
				if wire.Message != upstreamWire.Message {
					t.Errorf("message = %q, want the upstream's %q", wire.Message, upstreamWire.Message)
				}
			}
		})
	}
}

func TestCheckLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.2:8931", "localhost:8931", "LOCALHOST:1", "[::1]:8931"} {
		if err := gateway.CheckLoopback(addr); err != nil {
			t.Errorf("CheckLoopback(%q) = %v, want nil", addr, err)
		}
	}
	for _, addr := range []string{":8931", "0.0.0.0:8931", "[::]:8931", "192.168.1.2:8931", "example.com:80", "127.0.0.1", ""} {
		if err := gateway.CheckLoopback(addr); err == nil {
			t.Errorf("CheckLoopback(%q) = nil, want an error", addr)
		}
	}
}

// A gap in the feed (events the journal no longer kept) makes the gateway
// load the fleet's tools again: whatever ToolsChanged it missed, it ends
// equal to the fleet.
func TestGateway_FeedGapReloadsTheTools(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	src := &fakeSource{tools: []messages.Tool{tool("alpha", "echo", "Echoes.")}}
	h := startGateway(t, src)
	c := h.connectInMemory(ctx, "")
	c.waitTools(ctx, "alpha__echo")

	// The fleet changed while the gateway's feed fell behind: alpha went,
	// beta came, and those ToolsChanged events were lost.
	src.mu.Lock()
	src.tools = []messages.Tool{tool("beta", "pid", "Pid.")}
	src.mu.Unlock()
	h.events <- &messages.Envelope{Event: &messages.FeedTruncated{Since: 1, Next: 9, Reason: "fell behind"}}
	c.waitTools(ctx, "beta__pid")
	if diff := cmp.Diff([]string{"beta__pid"}, h.gw.Exposed()); diff != "" {
		t.Errorf("Exposed (-want +got):\n%s", diff)
	}
}
