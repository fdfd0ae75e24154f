package actors_test

import (
	"context"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// On a server with resetTimeoutOnProgress, each notifications/progress
// restarts the call's timeout: a call that reports progress outlives it.
func TestRelay_ProgressResetsTheCallTimeout(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	step, finish := make(chan struct{}), make(chan struct{})
	srv := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "long", Version: "1"}, nil)
		s.AddTool(tool("work", "reports progress when told, answers when told"), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			token := req.Params.GetProgressToken()
			if token == nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no progress token"}}}, nil
			}
			for {
				select {
				case <-step:
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1})
				case <-finish:
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
		})
		return s
	}
	f := newFleet(t, map[string]func() *mcp.Server{"long": srv})
	path := configFor(t)
	writeConfig(t, path, map[string]any{"long": map[string]any{"command": "in-memory", "callTimeout": "10s", "resetTimeoutOnProgress": true}})
	clock := quartz.NewMock(t)
	sup, rec := startInMemory(t, clock, f, actors.Options{ConfigPaths: []string{path}})
	rec.WaitState(ctx, 0, "long", messages.StateReady)

	armed := clock.Trap().AfterFunc("session", "call")
	defer armed.Close()
	resetCall := clock.Trap().TimerReset("session", "call")
	defer resetCall.Close()
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := sup.CallTool(ctx, "long__work", nil)
		done <- result{res, err}
	}()
	armed.MustWait(ctx).MustRelease(ctx)
	clock.Advance(9 * time.Second).MustWait(ctx)
	step <- struct{}{}
	// The call's timer restarts.
	c := resetCall.MustWait(ctx)
	if c.Duration != 10*time.Second {
		t.Errorf("reset to %s", c.Duration)
	}
	c.MustRelease(ctx)
	// 18s in: past the 10s timeout, within the restarted one.
	clock.Advance(9 * time.Second).MustWait(ctx)
	close(finish)
	r := <-done
	if r.err != nil {
		t.Fatalf("call failed: %v", r.err)
	}
	if got := r.res.Content[0].(*mcp.TextContent).Text; got != "done" {
		t.Errorf("result %q", got)
	}
}
