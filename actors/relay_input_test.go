//lint:file-ignore SA1019 roots are deprecated from protocol 2026-07-28 on (SEP-2577); a server asking for them is what these tests bound.

package actors_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// An input request (protocol 2026-07-28) reaches Options.Elicitation
// under the call's context (CallerOf names who called), and the call is
// retried with the answer; with WithInputPassThrough it comes back to the
// caller instead, and the caller's answers go with its retry.
func TestRelay_InputRequestsOfALibraryCall(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	f := newFleet(t, map[string]func() *mcp.Server{"up": twoWayServer})
	var callers []any
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{
		ConfigPaths: []string{configFor(t, "up")},
		Elicitation: func(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			callers = append(callers, actors.CallerOf(ctx))
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": server + " handler"}}, nil
		},
	})
	rec.WaitState(ctx, 0, "up", messages.StateReady)
	args := map[string]any{"message": "colour?"}

	res, err := sup.CallTool(actors.WithCaller(ctx, "caller-1"), "up__elicit", args)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); got != "the user answered: up handler" {
		t.Errorf("answered by the handler: %q", got)
	}
	if len(callers) != 1 || callers[0] != "caller-1" {
		t.Errorf("the handler was asked for callers %v, want [caller-1]", callers)
	}

	res, err = sup.CallTool(ctx, "up__elicit", args, actors.WithInputPassThrough(nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	// Passed through as the server sent it, but naming the server (G1).
	if ask, ok := res.InputRequests["elicit"].(*mcp.ElicitParams); !ok || ask.Message != "[server \"up\"] colour?" || ask.Meta["io.mcpvisor/server"] != "up" {
		t.Fatalf("passed through: %+v, want the server's elicitation, attributed", res)
	}
	answers := mcp.InputResponseMap{"elicit": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "mine"}}}
	res, err = sup.CallTool(ctx, "up__elicit", args, actors.WithInputPassThrough(answers, res.RequestState))
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); got != "the user answered: mine" {
		t.Errorf("the caller's retry: %q", got)
	}
	if len(callers) != 1 {
		t.Errorf("the handler was asked %d times, want once (passed-through calls are the caller's)", len(callers))
	}
}

// A server that keeps asking, or keeps shedding load, fails the call
// after a bounded number of rounds instead of holding it for ever.
func TestRelay_InputRequestRoundsAreBounded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		asks mcp.InputRequestMap
		want string
	}{
		{"asking", mcp.InputRequestMap{"r": &mcp.ListRootsParams{}}, "still asked for input after 10 rounds"},
		{"shedding", mcp.InputRequestMap{}, "shed load 3 times"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			rounds := 0
			srv := func() *mcp.Server {
				s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
				s.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					rounds++
					return &mcp.CallToolResult{InputRequests: c.asks}, nil
				})
				return s
			}
			f := newFleet(t, map[string]func() *mcp.Server{"up": srv})
			sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{ConfigPaths: []string{configFor(t, "up")}})
			rec.WaitState(ctx, 0, "up", messages.StateReady)
			_, err := sup.CallTool(ctx, "up__ask", nil)
			if !errors.Is(err, actors.ErrUpstream) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want an upstream error saying %q", err, c.want)
			}
			if want := map[string]int{"asking": 10, "shedding": 3}[c.name]; rounds != want {
				t.Errorf("the server was asked %d times, want %d", rounds, want)
			}
		})
	}
}

func resultText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) != 1 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}
