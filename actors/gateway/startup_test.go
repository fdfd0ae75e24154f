package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// statusSource is a fakeSource that also reports a fleet status.
type statusSource struct {
	*fakeSource
	mu     sync.Mutex
	status messages.Status
}

func (s *statusSource) Status() messages.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

func fleetStatus(states map[string]messages.State) messages.Status {
	st := messages.Status{Generation: 1, ObservedGeneration: 1}
	for name, state := range states {
		st.Servers = append(st.Servers, messages.ServerStatus{Name: name, Prefix: name, State: state})
	}
	return st
}

// A fleet that does not settle holds the first tools/list only for the
// startup wait: then the list is answered with what is ready.
func TestGateway_StartupWaitBoundsTheHold(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t)
	src := &statusSource{
		fakeSource: &fakeSource{tools: []messages.Tool{tool("alpha", "echo", "Echoes.")}},
		status:     fleetStatus(map[string]messages.State{"alpha": messages.StateReady, "slow": messages.StateStarting}),
	}
	trap := clock.Trap().AfterFunc("gateway", "startup-wait")
	defer trap.Close()
	h := startGatewayOver(t, src, func(h *harness) { h.gw.HoldFirstLists(time.Minute, clock) })
	trap.MustWait(ctx).MustRelease(ctx)
	c := h.connectInMemory(ctx, "")
	listed := make(chan []string, 1)
	go func() {
		res, err := c.cs.ListTools(ctx, nil)
		var names []string
		if err == nil {
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
			}
		}
		listed <- names
	}()
	clock.Advance(time.Minute).MustWait(ctx)
	select {
	case names := <-listed:
		if strings.Join(names, ",") != "alpha__echo" {
			t.Fatalf("tools after the startup wait: %v, want alpha__echo", names)
		}
	case <-ctx.Done():
		t.Fatal("tools/list still held after the startup wait")
	}
}

// A call, get or completion of a name the gateway does not expose goes to
// the Source when the server of its prefix is starting (the Source waits
// for it), ready (not applied here yet) or failed (the Source says it is
// not ready); a server that did not start while the Source waited is an
// isError naming it and why. A name of no server, or of one that does not
// run, is unknown at once, without asking the Source.
func TestGateway_RequestsForAStartingServerGoToTheSource(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	var mu sync.Mutex
	var asked []string
	src := &statusSource{
		fakeSource: &fakeSource{tools: []messages.Tool{tool("alpha", "echo", "Echoes.")},
			call: func(_ context.Context, name string, _ any) (*mcp.CallToolResult, error) {
				mu.Lock()
				asked = append(asked, name)
				mu.Unlock()
				if name == "broken__echo" {
					return nil, &actors.StartError{Server: "broken", Reason: "failed: exit status 3"}
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called " + name}}}, nil
			}},
		status: fleetStatus(map[string]messages.State{"alpha": messages.StateReady, "slow": messages.StateStarting,
			"broken": messages.StateFailed, "off": messages.StateDisabled}),
	}
	src.status.Servers = append(src.status.Servers, messages.ServerStatus{Name: "github.com/x/slow", Prefix: "gh", State: messages.StateStarting})
	h := startGatewayOver(t, src, nil)
	c := h.connectInMemory(ctx, "")
	c.waitTools(ctx, "alpha__echo")
	for name, want := range map[string]string{
		"slow__echo":   "called slow__echo",
		"gh__echo":     "called gh__echo",
		"broken__echo": `broken__echo: server "broken" did not start: failed: exit status 3`,
	} {
		res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil || res.IsError != (name == "broken__echo") || text(t, res) != want {
			t.Errorf("%s: %+v, %v; want %q", name, res, err, want)
		}
	}
	if got, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "slow__greet"}); err != nil || len(got.Messages) != 1 {
		t.Errorf("get of a starting server's prompt: %+v, %v; want it from the Source", got, err)
	}
	if got, err := c.cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "slow__greet"},
		Argument: mcp.CompleteParamsArgument{Name: "who", Value: "w"}}); err != nil || got.Completion.Values[0] != "ref/prompt slow__greet who=w" {
		t.Errorf("completion of a starting server's prompt: %+v, %v; want it from the Source", got, err)
	}
	mu.Lock()
	before := len(asked)
	mu.Unlock()
	for _, name := range []string{"nobody__echo", "off__echo"} {
		_, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || wire.Message != fmt.Sprintf("unknown tool %q", name) {
			t.Errorf("%s: err %v, want unknown tool (-32602)", name, err)
		}
		_, err = c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name})
		if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || wire.Message != fmt.Sprintf("unknown prompt %q", name) {
			t.Errorf("%s: err %v, want unknown prompt (-32602)", name, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != before {
		t.Errorf("the Source was asked for %v, names no server provides", asked[before:])
	}
}

// A read of a URI the gateway does not expose goes to the Source while a
// server is starting (it may list it once up); the Source's "unknown"
// then is "resource not found", as it is at once when nothing is starting.
func TestGateway_ReadOfAnUnlistedURIWaitsOnlyWhileAServerStarts(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	src := &statusSource{
		fakeSource: &fakeSource{tools: []messages.Tool{tool("alpha", "echo", "Echoes.")},
			read: func(_ context.Context, uri string) (*mcp.ReadResourceResult, error) {
				if uri == "mem://nobody" {
					return nil, fmt.Errorf("%w: %q", actors.ErrUnknownResource, uri)
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: "read " + uri}}}, nil
			}},
		status: fleetStatus(map[string]messages.State{"alpha": messages.StateReady, "slow": messages.StateStarting}),
	}
	h := startGatewayOver(t, src, nil)
	c := h.connectInMemory(ctx, "")
	c.waitTools(ctx, "alpha__echo")
	if got, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://slow/readme"}); err != nil || got.Contents[0].Text != "read mem://slow/readme" {
		t.Errorf("read while slow starts: %+v, %v; want it from the Source", got, err)
	}
	var wire *jsonrpc.Error
	if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://nobody"}); !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("read of a URI the Source does not know: %v, want resource not found", err)
	}
	src.mu.Lock()
	src.status = fleetStatus(map[string]messages.State{"alpha": messages.StateReady, "slow": messages.StateReady})
	src.mu.Unlock()
	if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://slow/readme"}); !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("read of an unlisted URI with nothing starting: %v, want resource not found at once", err)
	}
}

// A call that comes before the fleet has applied its config (a client
// that connects the instant `serve` starts) names no known server yet:
// it goes to the Source, which waits for the config, rather than being
// unknown.
func TestGateway_ACallBeforeTheConfigIsReadGoesToTheSource(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	src := &statusSource{fakeSource: &fakeSource{}, status: messages.Status{Generation: 1}}
	h := startGatewayOver(t, src, nil)
	c := h.connectInMemory(ctx, "")
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "later__echo", Arguments: map[string]any{}})
	if err != nil || res.IsError || text(t, res) != "called later__echo" {
		t.Fatalf("call before the config is applied: %+v, %v; want it from the Source", res, err)
	}
}
