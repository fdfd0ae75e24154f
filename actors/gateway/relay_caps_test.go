//lint:file-ignore SA1019 sampling and roots are deprecated from protocol 2026-07-28 on (SEP-2577) but are what these tests advertise.

package gateway_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// capsServer speaks 2025-11-25 only, where a client's capabilities are
// fixed at initialize, and sends each session's capabilities on caps.
func capsServer(caps chan<- string) func() *mcp.Server {
	return func() *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "caps", Version: "1"}, &mcp.ServerOptions{
			SupportedProtocolVersions: []string{"2025-11-25"},
			InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
				caps <- capsOf(req.Session.InitializeParams().Capabilities)
			},
		})
		srv.AddTool(&mcp.Tool{Name: "noop", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
		return srv
	}
}

// capsOf names the client capabilities the relay deals in.
func capsOf(c *mcp.ClientCapabilities) string {
	var have []string
	if c != nil && c.Sampling != nil {
		have = append(have, "sampling")
	}
	if c != nil && c.Elicitation != nil {
		have = append(have, "elicitation")
	}
	if c != nil && (c.RootsV2 != nil || c.Roots.ListChanged) {
		have = append(have, "roots")
	}
	return strings.Join(have, " ")
}

// A server that connects before any gateway client is told all the relay
// can honour (its first client is on its way); one that connects while
// clients are connected is told only what one of them can do.
func TestRelay_CapabilitiesAdvertisedAsTheClientsHaveThem(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	caps := make(chan string, 8)
	r := startRelayRig(t, ctx, nil, capsServer(caps))
	got := []string{received(t, ctx, caps)}

	// A client that can sample, and has neither elicitation nor roots.
	r.connect(ctx, "2025-11-25", &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
	}, "demo__noop")
	// Restart the server (its environment changed): it connects again,
	// now with the client there.
	r.writeConfig(map[string]any{"env": map[string]any{"GEN": "2"}})
	if _, _, err := r.sup.Resync(ctx, false); err != nil {
		t.Fatal(err)
	}
	got = append(got, received(t, ctx, caps))
	if diff := cmp.Diff([]string{"sampling elicitation roots", "sampling"}, got); diff != "" {
		t.Errorf("what the server's sessions were told (-want +got):\n%s", diff)
	}
}

// On 2026-07-28 (the upstream's protocol here) each call tells the
// server only of its own client's roots: a client without roots calling
// a tool that needs them gets the server's refusal, not the session's.
func TestRelay_CallTellsTheServerOnlyItsClientsRoots(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			r := startRelayRig(t, ctx, nil, nil)
			cs := r.connect(ctx, p.pin, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}, demoTools()...)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__roots"})
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); !res.IsError || !strings.Contains(got, "roots needs roots") {
				t.Errorf("a client without roots got %q (isError %v), want the server's roots needs roots", got, res.IsError)
			}
		})
	}
}
