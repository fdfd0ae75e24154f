package gateway_test

import (
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
)

// Under --names bare a name does not tell its server: a call of a name
// not listed yet, while the fleet starts (cache cold), waits for the first
// lists' hold, then finds the tool and is answered.
func TestGateway_BareNameCalledWhileTheFleetStartsWaitsForTheHold(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	held := newHeldFleet(t, map[string]func() *mcp.Server{"alpha": toolsServer(memTool("echo", "Echoes."))})
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{cacheConfig(t, "alpha")}, CacheDir: "-", Dial: held.dial, DisableWatch: true,
		ProbeInterval: -1, Clock: quartz.NewMock(t).WithLogger(quartz.NoOpLogger), Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	h := startGatewayOver(t, sup, func(h *harness) {
		followInto(t, sup)(h)
		h.gw.HoldFirstLists(gateway.DefaultStartupWait, quartz.NewMock(t))
	}, gateway.WithNames(gateway.NamesBare))
	c := h.connectInMemory(ctx, "")

	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
		done <- result{res, err}
	}()
	for h.logs.FilterMessage("request waits for the first lists' hold (a bare name tells no server)").Len() == 0 {
		select {
		case r := <-done:
			t.Fatalf("echo answered while alpha was starting: %+v, %v", r.res, r.err)
		case <-h.logged:
		case <-ctx.Done():
			t.Fatal("the call never waited for the hold")
		}
	}
	held.release("alpha")
	select {
	case r := <-done:
		if r.err != nil || r.res.IsError {
			t.Fatalf("echo once alpha is up: %+v, %v; want it answered", r.res, r.err)
		}
	case <-ctx.Done():
		t.Fatal("echo never answered")
	}
}
