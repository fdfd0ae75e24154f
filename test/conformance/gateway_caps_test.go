//lint:file-ignore SA1019 sampling and roots are deprecated from protocol 2026-07-28 on (SEP-2577) but are what these clients advertise.

package conformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// server-everything lists some of its tools only for a client that
// declared a capability at initialize: trigger-sampling-request
// (sampling), trigger-elicitation-request (elicitation),
// trigger-url-elicitation (elicitation in url mode), get-roots-list
// (roots). Through the gateway it is the gateway's session that
// initializes it, so what the server is told decides what every client
// of the gateway sees (issue 24, item 5).

// startEverythingGateway supervises server-everything over stdio with
// relay installed, mounts the gateway over it, and waits until the
// server is ready: it connects before any client, as a starting
// gateway's servers do.
func startEverythingGateway(ctx context.Context, t *testing.T, relay *gateway.Relay) *gateway.Gateway {
	t.Helper()
	cfg := t.TempDir() + "/.mcp.json"
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"everything": everythingStdio()})
	logger := zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel))
	opts := actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Logger: logger, StopGrace: 500 * time.Millisecond}
	relay.Install(&opts)
	sup, err := actors.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := actorstest.Record(t, sup)
	gw := gateway.Mount(sup, gateway.MountOptions{Logger: logger, Relay: relay})
	t.Cleanup(func() {
		gw.Close()
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	rec.WaitState(ctx, 0, "everything", messages.StateReady)
	waitGatewayLists(ctx, t, gw)
	return gw
}

// waitGatewayLists returns once gw lists tools: the server is ready, but
// the gateway applies its catalog on its own goroutine, so a client that
// lists at once may still see none. A probe client waits for the
// gateway's tools/list_changed, which follows the catalog.
func waitGatewayLists(ctx context.Context, t *testing.T, gw *gateway.Gateway) {
	t.Helper()
	changed := make(chan struct{}, 1)
	probe := gatewayClient(ctx, t, gw, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	for len(toolNames(ctx, t, probe)) == 0 {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("the gateway never listed the server's tools")
		}
	}
	_ = probe.Close()
}

// gatewayClient connects a client with these options to gw in memory,
// on 2025-11-25 as the clients of issue 24 speak it (a server's
// elicitation/create on its connection reaches such a client as a
// request; a 2026-07-28 client is asked in the call's result).
func gatewayClient(ctx context.Context, t *testing.T, gw *gateway.Gateway, o *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := gw.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, o).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// toolNames lists cs's tools, sorted.
func toolNames(ctx context.Context, t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tool.Name)
	}
	slices.Sort(out)
	return out
}

// prefixed is names as the gateway exposes everything's.
func prefixed(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "everything__" + n
	}
	return out
}

// A client that can do everything, and one that can do nothing.
func richClient() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{
			Sampling:    &mcp.SamplingCapabilities{},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}
}

func bareClient() *mcp.ClientOptions {
	return &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
}

// Two clients with different capabilities see one list, in either order
// of connecting: the server connected before both and was told the
// gateway's default (nothing), so it lists no tool that either cannot
// serve. Before, it was told everything: a client without sampling saw
// trigger-sampling-request, and the list depended on who came first.
func TestGateway_EverythingListsTheSameToolsWhoeverConnectsFirst(t *testing.T) {
	t.Parallel()
	for _, order := range []string{"bare first", "rich first"} {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			gw := startEverythingGateway(ctx, t, &gateway.Relay{})
			first, second := bareClient(), richClient()
			if order == "rich first" {
				first, second = second, first
			}
			a := gatewayClient(ctx, t, gw, first)
			gotA := toolNames(ctx, t, a)
			b := gatewayClient(ctx, t, gw, second)
			gotB, gotAAgain := toolNames(ctx, t, b), toolNames(ctx, t, a)
			want := prefixed(everythingTools)
			for name, got := range map[string][]string{"first": gotA, "second": gotB, "first, after the second came": gotAAgain} {
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s client's tools (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

// A gateway told its clients can elicit in url mode tells the server so:
// server-everything lists trigger-url-elicitation, and its url-mode
// elicitation/create reaches the client as the server sent it (mode,
// url, elicitationId), the client's answer reaching the server.
func TestGateway_URLElicitationRelayedEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	gw := startEverythingGateway(ctx, t, &gateway.Relay{Default: &mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}},
	}})
	asked := make(chan *mcp.ElicitParams, 1)
	o := richClient()
	o.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- req.Params
		return &mcp.ElicitResult{Action: "accept"}, nil
	}
	cs := gatewayClient(ctx, t, gw, o)
	if tools := toolNames(ctx, t, cs); !slices.Contains(tools, "everything__trigger-url-elicitation") {
		t.Fatalf("tools %v: trigger-url-elicitation is missing, so the server was not told of url elicitation", tools)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__trigger-url-elicitation", Arguments: map[string]any{
		"url": "https://example.com/authorize", "message": "Sign in to continue", "elicitationId": "e-42",
	}})
	if err != nil {
		t.Fatal(err)
	}
	var p *mcp.ElicitParams
	select {
	case p = <-asked:
	default:
		t.Fatalf("the call ended (%q, isError %v) and the client was never asked", resultText(res), res.IsError)
	}
	if p.Mode != "url" || p.URL != "https://example.com/authorize" || p.ElicitationID != "e-42" || !strings.HasSuffix(p.Message, "Sign in to continue") {
		t.Errorf("the client was asked %+v, want the server's url elicitation", p)
	}
	if text := resultText(res); res.IsError || !strings.Contains(text, "User completed the URL elicitation flow") {
		t.Errorf("result %q (isError %v), want the server to have seen the client accept", text, res.IsError)
	}
}

// A server asking the gateway for what its calling client cannot do gets
// a JSON-RPC error with a code (server-everything shows it as "MCP error
// CODE: ..."): -32601, as from a client without the capability. It was 0.
func TestGateway_RefusedSamplingReachesTheServerWithACode(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	gw := startEverythingGateway(ctx, t, &gateway.Relay{Default: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}})
	cs := gatewayClient(ctx, t, gw, bareClient())
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__trigger-sampling-request", Arguments: map[string]any{"prompt": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := resultText(res); !res.IsError || !strings.Contains(text, "MCP error -32601:") {
		t.Errorf("result %q (isError %v), want the server's failure naming code -32601", text, res.IsError)
	}
}

// server-everything's url-elicitation-required error (-32042, its data
// the elicitations to complete) reaches a client through the gateway as
// it reaches one directly.
func TestGateway_EverythingURLElicitationRequiredPassesThrough(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	gw := startEverythingGateway(ctx, t, &gateway.Relay{Default: &mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}},
	}})
	args := map[string]any{"url": "https://example.com/a", "message": "m", "errorPath": true}
	_, viaErr := gatewayClient(ctx, t, gw, richClient()).CallTool(ctx, &mcp.CallToolParams{Name: "everything__trigger-url-elicitation", Arguments: args})

	direct, err := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "1"}, richClient()).
		Connect(ctx, &mcp.CommandTransport{Command: exec.Command(nodeBin, everythingJS, "stdio")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = direct.Close() })
	_, directErr := direct.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-url-elicitation", Arguments: args})

	want, got := comparable(t, "directly", directErr), comparable(t, "through the gateway", viaErr)
	if want.Code != mcp.CodeURLElicitationRequired {
		t.Fatalf("directly: code %d, want -32042", want.Code)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the gateway's error differs from the server's (-direct +gateway):\n%s", diff)
	}
}

// comparable is err's JSON-RPC error with the elicitation ids (random
// per call) in its data blanked.
func comparable(t *testing.T, what string, err error) jsonrpc.Error {
	t.Helper()
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		t.Fatalf("%s: got %v, want a JSON-RPC error", what, err)
	}
	var data map[string]any
	if err := json.Unmarshal(wire.Data, &data); err != nil {
		t.Fatalf("%s: data %s: %v", what, wire.Data, err)
	}
	elicitations, _ := data["elicitations"].([]any)
	for _, e := range elicitations {
		if m, ok := e.(map[string]any); ok {
			m["elicitationId"] = "<id>"
		}
	}
	blanked, _ := json.Marshal(data)
	return jsonrpc.Error{Code: wire.Code, Message: wire.Message, Data: blanked}
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
