//lint:file-ignore SA1019 the tests exercise sampling, roots and logging, deprecated from protocol 2026-07-28 on (SEP-2577).

package exampleserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
)

// askedClient is a client that honours sampling, elicitation and roots,
// and counts what it was asked.
type askedClient struct {
	samples, elicits chan string
	elicitAction     string
}

func (a *askedClient) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			a.samples <- req.Params.Messages[0].Content.(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: "four"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			a.elicits <- req.Params.Message
			if a.elicitAction != "accept" {
				return &mcp.ElicitResult{Action: a.elicitAction}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "blue"}}, nil
		},
	}
}

func TestClientRequests_RoundTrip(t *testing.T) {
	t.Parallel()
	for _, pv := range protocols {
		t.Run(pv, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			asked := &askedClient{samples: make(chan string, 4), elicits: make(chan string, 4), elicitAction: "accept"}
			srv := exampleserver.New(exampleserver.Options{Name: "w", TwoWay: true})
			st, ct := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, asked.options())
			client.AddRoots(&mcp.Root{URI: "file:///work/a", Name: "a"}, &mcp.Root{URI: "file:///work/b"})
			cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: pv})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })

			names := toolNames(t, ctx, cs)
			for _, name := range []string{"sample", "elicit", "roots", "progress", "log"} {
				if !names[name] {
					t.Fatalf("tool %s not listed to a client that advertises everything: %v", name, names)
				}
			}

			text := mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"prompt": "2+2?"}}))
			if text != "model test-model answered: four" {
				t.Fatalf("sample: %q", text)
			}
			if got := receive(t, ctx, asked.samples, "sampling request"); got != "2+2?" {
				t.Fatalf("the client was asked %q", got)
			}

			text = mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "elicit", Arguments: map[string]any{"message": "favourite colour?"}}))
			if text != "the user answered: blue" {
				t.Fatalf("elicit: %q", text)
			}
			if got := receive(t, ctx, asked.elicits, "elicitation request"); got != "favourite colour?" {
				t.Fatalf("the user was asked %q", got)
			}

			text = mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "roots", Arguments: map[string]any{}}))
			if text != "file:///work/a\nfile:///work/b" {
				t.Fatalf("roots: %q", text)
			}
		})
	}
}

func TestClientRequests_DeclinedElicitation(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	asked := &askedClient{samples: make(chan string, 4), elicits: make(chan string, 4), elicitAction: "decline"}
	cs := serve(t, ctx, exampleserver.Options{Name: "w", TwoWay: true}, asked.options(), legacy)
	if text := mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "elicit", Arguments: map[string]any{"message": "?"}})); text != "the user chose decline" {
		t.Fatalf("declined elicit: %q", text)
	}
}

// A client that advertises none of sampling, elicitation and roots is
// shown none of the tools that need them, and one that calls them anyway
// gets a tool error, never a request it cannot answer.
func TestClientRequests_HiddenWithoutTheCapability(t *testing.T) {
	t.Parallel()
	for _, pv := range protocols {
		t.Run(pv, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			cs := serve(t, ctx, exampleserver.Options{Name: "w", TwoWay: true}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}, pv)
			names := toolNames(t, ctx, cs)
			for _, name := range []string{"sample", "elicit", "roots"} {
				if names[name] {
					t.Errorf("tool %s listed to a client without its capability", name)
				}
			}
			if !names["progress"] || !names["log"] || !names["echo"] {
				t.Fatalf("the other tools went missing too: %v", names)
			}
			for _, tc := range []struct {
				tool, capability string
				args             map[string]any
			}{
				{"sample", "sampling", map[string]any{"prompt": "x"}},
				{"elicit", "elicitation", map[string]any{"message": "x"}},
				{"roots", "roots", map[string]any{}},
			} {
				text, isErr := resultText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args}))
				if !isErr || !strings.Contains(text, "needs "+tc.capability) {
					t.Errorf("calling %s without %s: %q (isError %v)", tc.tool, tc.capability, text, isErr)
				}
			}
		})
	}
}

// Roots alone shows roots, and only roots.
func TestClientRequests_EachToolFollowsItsOwnCapability(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cs := serve(t, ctx, exampleserver.Options{Name: "w", TwoWay: true}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}}, legacy)
	names := toolNames(t, ctx, cs)
	if !names["roots"] || names["sample"] || names["elicit"] {
		t.Fatalf("tools for a roots-only client: %v", names)
	}
}
