//lint:file-ignore SA1019 sampling is deprecated from protocol 2026-07-28 on (SEP-2577) but is what these tests relay.

package gateway_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// askedClient answers sampling and elicitation as name, and records
// that it was asked.
func askedClient(name string, asked chan<- string) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			asked <- name + " sampled"
			return &mcp.CreateMessageResult{Model: name, Role: "assistant", Content: &mcp.TextContent{Text: name + " says hi"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- name + " elicited"
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "from " + name}}, nil
		},
	}
}

// The upstream server (on 2026-07-28) asks for sampling and elicitation
// as input requests in its results. They reach the gateway client that
// made the call, while another that could answer is connected: a client
// on 2025-11-25 as sampling/createMessage and elicitation/create requests
// (the gateway retries the upstream call with its answers), a client on
// 2026-07-28 as the input requests themselves (its retry's answers go
// upstream).
func TestRelay_InputRequestsReachTheCallingClient(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			r := startRelayRig(t, ctx, nil, nil)
			asked := make(chan string, 16)
			a := r.connect(ctx, p.pin, askedClient("a", asked), demoTools()...)
			b := r.connect(ctx, p.pin, askedClient("b", asked), demoTools()...)
			if got := a.InitializeResult().ProtocolVersion; got != p.want {
				t.Fatalf("the client speaks %s, want %s", got, p.want)
			}
			var got []string
			for _, c := range []struct {
				name string
				cs   *mcp.ClientSession
			}{{"a", a}, {"b", b}} {
				got = append(got,
					call(t, ctx, c.cs, &mcp.CallToolParams{Name: "demo__sample", Arguments: map[string]any{"prompt": "hello"}}),
					received(t, ctx, asked),
					call(t, ctx, c.cs, &mcp.CallToolParams{Name: "demo__elicit", Arguments: map[string]any{"message": "colour?"}}),
					<-asked)
			}
			want := []string{
				"model a answered: a says hi", "a sampled", "the user answered: from a", "a elicited",
				"model b answered: b says hi", "b sampled", "the user answered: from b", "b elicited",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("results and who was asked (-want +got):\n%s", diff)
			}
			select {
			case extra := <-asked:
				t.Errorf("a client was asked once more: %s", extra)
			default:
			}
		})
	}
}

// A client on 2026-07-28 gets the upstream's input requests in the
// gateway's result, as the server asked them, and the answers of its
// retried call reach the server.
func TestRelay_InputRequestsPassThroughToNewClients(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := startRelayRig(t, ctx, nil, nil)
	o := askedClient("unused", make(chan string, 4))
	o.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true} // this test answers by hand
	cs := r.connect(ctx, "", o, demoTools()...)

	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__elicit", Arguments: map[string]any{"message": "colour?"}})
	if err != nil {
		t.Fatal(err)
	}
	if !first.NeedsInput() {
		t.Fatalf("the first result needs no input: %+v", first)
	}
	ask, ok := first.InputRequests["elicit"].(*mcp.ElicitParams)
	if !ok || ask.Message != "[server \"demo\"] colour?" || ask.Meta["io.mcpvisor/server"] != "demo" || len(first.InputRequests) != 1 {
		t.Fatalf("input requests %+v, want the server's one elicitation, attributed", first.InputRequests)
	}
	retry := &mcp.CallToolParams{
		Name: "demo__elicit", Arguments: map[string]any{"message": "colour?"},
		InputResponses: mcp.InputResponseMap{"elicit": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "blue"}}},
		RequestState:   first.RequestState,
	}
	if got := call(t, ctx, cs, retry); got != "the user answered: blue" {
		t.Errorf("the retried call: %q, want the server to have the answer", got)
	}
}

// received is the next value on ch, or the test fails when ctx ends.
func received(t *testing.T, ctx context.Context, ch <-chan string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatal("nobody was asked")
		return ""
	}
}
