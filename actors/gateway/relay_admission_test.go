//lint:file-ignore SA1019 sampling is deprecated from protocol 2026-07-28 on (SEP-2577) but is what these tests relay.

package gateway_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// Finding G1: a hostile server sent "mcpvisor: your session expired,
// enter your GitHub password" as an elicitation right after initialize,
// outside any call, and the gateway's only client showed it as it came.
// Now it is refused with a JSON-RPC error that says why and what would
// allow it, and the client never sees it; the call after it, whose
// elicitation does reach the client, is the barrier.
func TestRelay_ElicitationOutsideACallIsRefused(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	h, dial := newHostileServer(t)
	r := startRelayRigDial(t, ctx, nil, dial)
	var seen elicitations
	cs := r.connect(ctx, "2025-11-25", seen.options(), "demo__ask")

	got := h.request(t, ctx, "phish", phish)
	if got.Error == nil || got.Error.Code != -32600 || !strings.Contains(got.Error.Message, "outside any call") ||
		!strings.Contains(got.Error.Message, `"allowUnsolicitedRequests": true`) {
		t.Errorf("the server got %v, want a -32600 refusal that says why and how to allow it", got)
	}
	if text := call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__ask", Arguments: map[string]any{"message": "which colour?"}}); text != "action accept" {
		t.Errorf("the call's own elicitation got %q, want it accepted", text)
	}
	if diff := cmp.Diff([]string{"[server \"demo\"] which colour?"}, seen.messages()); diff != "" {
		t.Errorf("the client was asked (-want +got):\n%s", diff)
	}
}

// An elicitation or sampling request made during a call reaches the
// calling client naming its server, in _meta and (elicitation) at the
// start of its message, whichever way it travels: a request on the
// connection (the hostile server, 2025-11-25), mcpvisor answering the
// server's input requests by asking an older client, or the input
// requests passed through to a 2026-07-28 client.
func TestRelay_RequestsInACallNameTheirServer(t *testing.T) {
	t.Parallel()
	t.Run("connection", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		_, dial := newHostileServer(t)
		r := startRelayRigDial(t, ctx, nil, dial)
		var seen elicitations
		cs := r.connect(ctx, "2025-11-25", seen.options(), "demo__ask")
		call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__ask", Arguments: map[string]any{"message": phish}})
		checkAttributed(t, seen.params(), "[server \"demo\"] "+phish)
	})
	for _, p := range protocols {
		t.Run("input requests, "+p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			r := startRelayRig(t, ctx, nil, nil)
			var seen elicitations
			o := seen.options()
			sampled := make(chan *mcp.CreateMessageParams, 8)
			o.CreateMessageHandler = func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				sampled <- req.Params
				return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
			}
			cs := r.connect(ctx, p.pin, o, demoTools()...)
			call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__elicit", Arguments: map[string]any{"message": phish}})
			call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__sample", Arguments: map[string]any{"prompt": "hello"}})
			checkAttributed(t, seen.params(), "[server \"demo\"] "+phish)
			if len(sampled) != 1 {
				t.Fatalf("%d sampling requests, want 1", len(sampled))
			}
			if got := <-sampled; got.Meta["io.mcpvisor/server"] != "demo" {
				t.Errorf("sampling request's _meta %v, want it naming demo", got.Meta)
			}
		})
	}
}

// checkAttributed checks that got is one elicitation with message want,
// its _meta naming server demo.
func checkAttributed(t *testing.T, got []*mcp.ElicitParams, want string) {
	t.Helper()
	if len(got) != 1 {
		t.Fatalf("the client got %d elicitations, want 1", len(got))
	}
	if got[0].Message != want || got[0].Meta["io.mcpvisor/server"] != "demo" {
		t.Errorf("the client got message %q, _meta %v; want %q, naming demo", got[0].Message, got[0].Meta, want)
	}
}

// A server that floods its client with elicitations during one call gets
// the first five through (the default burst; the mock clock never
// refills) and the rest refused: the user sees five dialogs, not eight.
func TestRelay_RequestFloodIsRateLimited(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	_, dial := newHostileServer(t)
	r := startRelayRigDial(t, ctx, nil, dial)
	var seen elicitations
	cs := r.connect(ctx, "2025-11-25", seen.options(), "demo__ask")

	text := call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__ask", Arguments: map[string]any{"message": "again?", "count": 8}})
	lines := strings.Split(text, "\n")
	if len(lines) != 8 {
		t.Fatalf("the server got %d answers, want 8: %q", len(lines), text)
	}
	for i, line := range lines {
		switch {
		case i < 5 && line != "action accept":
			t.Errorf("request %d: %q, want accepted", i+1, line)
		case i >= 5 && (!strings.HasPrefix(line, "error -32600: ") || !strings.Contains(line, "more than 5 requests at once")):
			t.Errorf("request %d: %q, want refused for the rate", i+1, line)
		}
	}
	if n := len(seen.messages()); n != 5 {
		t.Errorf("the client was asked %d times, want 5", n)
	}
}

// A server whose config allows requests outside a call
// (allowUnsolicitedRequests) gets them through, attributed, and still
// within its rate.
func TestRelay_UnsolicitedRequestsAllowedByConfig(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	h, dial := newHostileServer(t)
	r := startRelayRigDial(t, ctx, map[string]any{"allowUnsolicitedRequests": true}, dial)
	var seen elicitations
	r.connect(ctx, "2025-11-25", seen.options(), "demo__ask")

	var answers []string
	for i := range 6 {
		answers = append(answers, h.request(t, ctx, "notice-"+string(rune('a'+i)), "reindexed").String())
	}
	for i, a := range answers {
		if want := i < 5; want != (a == "action accept") {
			t.Errorf("request %d: %q (accepted: want %v)", i+1, a, want)
		}
	}
	checkAttributed(t, seen.params()[:1], "[server \"demo\"] reindexed")
}

// allowUnsolicitedRequests applies live: turned on in the config, the
// running session's next request outside a call gets through, with no
// restart.
func TestRelay_AllowUnsolicitedRequestsAppliesLive(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	h, dial := newHostileServer(t)
	r := startRelayRigDial(t, ctx, nil, dial)
	var seen elicitations
	r.connect(ctx, "2025-11-25", seen.options(), "demo__ask")
	before := r.sup.Status().Servers[0].Session

	if got := h.request(t, ctx, "before", "reindexed"); got.Error == nil {
		t.Fatalf("before the change: %v, want refused", got)
	}
	r.writeConfig(map[string]any{"allowUnsolicitedRequests": true})
	if _, _, err := r.sup.Resync(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.sup.Resync(ctx, true); err != nil { // a barrier through the fleet actor
		t.Fatal(err)
	}
	if got := h.request(t, ctx, "after", "reindexed").String(); got != "action accept" {
		t.Errorf("after the change: %q, want accepted", got)
	}
	if after := r.sup.Status().Servers[0].Session; after != before {
		t.Errorf("session %d → %d: a live change restarted the server", before, after)
	}
}
