package gateway_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// A call of a tool the gateway does not have is answered by the state of
// its server, found by its exposed prefix: starting is an isError result
// saying so, failed the usual not-ready result; an unknown server stays
// "unknown tool".
func TestGateway_CallOfANotReadyServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	src := &statusSource{
		fakeSource: &fakeSource{tools: []messages.Tool{tool("alpha", "echo", "Echoes.")}},
		status: fleetStatus(map[string]messages.State{"alpha": messages.StateReady, "slow": messages.StateStarting,
			"broken": messages.StateFailed, "off": messages.StateDisabled}),
	}
	src.status.Servers = append(src.status.Servers, messages.ServerStatus{Name: "github.com/x/slow", Prefix: "gh", State: messages.StateStarting})
	h := startGatewayOver(t, src, nil)
	c := h.connectInMemory(ctx, "")
	c.waitTools(ctx, "alpha__echo")
	for name, want := range map[string]string{
		"slow__echo":   `server "slow" is starting, try again shortly`,
		"broken__echo": `server "broken" is not ready`,
		"gh__echo":     `server "github.com/x/slow" is starting, try again shortly`,
	} {
		res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil || !res.IsError || !strings.Contains(text(t, res), want) {
			t.Errorf("%s: %+v, %v; want isError %q", name, res, err, want)
		}
	}
	for _, name := range []string{"nobody__echo", "off__echo"} {
		_, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: err %v, want unknown tool (-32602)", name, err)
		}
	}
}
