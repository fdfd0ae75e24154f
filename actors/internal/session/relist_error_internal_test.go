package session

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// A re-list that fails (an error other than an unbounded listing) leaves
// its kind dirty: once the re-list interval has passed the kind is listed
// again, so the change the failed re-list was for is not lost until the
// server happens to send another list_changed.
func TestRelist_AFailedRelistIsRetriedAfterTheInterval(t *testing.T) {
	t.Parallel()
	const interval = 3 * time.Second
	ctx := testctx.Context(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	echo := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	srv.AddTool(&mcp.Tool{Name: "v0", InputSchema: map[string]any{"type": "object"}}, echo)
	var failNext atomic.Bool
	failed := make(chan struct{})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" && failNext.CompareAndSwap(true, false) {
				defer close(failed)
				return nil, errors.New("busy, try later")
			}
			return next(ctx, method, req)
		}
	})
	r := newRig(t, func(messages.ServerSpec) (mcp.Transport, error) {
		server, client := net.Pipe()
		if _, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: server, Writer: server}, nil); err != nil {
			return nil, err
		}
		return &mcp.IOTransport{Reader: client, Writer: client}, nil
	})
	r.deps.RelistInterval = interval
	trap := r.clock.Trap().AfterFunc("session", "relist-interval")
	closeTrap := sync.OnceFunc(trap.Close)
	defer closeTrap()

	r.spawn(messages.ServerSpec{Name: "s", Transport: messages.TransportStdio}, 1)
	report[*Ready](ctx, r)
	failNext.Store(true)
	srv.AddTool(&mcp.Tool{Name: "v1", InputSchema: map[string]any{"type": "object"}}, echo) // list_changed
	trap.MustWait(ctx).MustRelease(ctx)                                                     // the re-list began
	closeTrap()
	select {
	case <-failed:
	case <-ctx.Done():
		t.Fatal("the re-list never reached the server")
	}
	r.clock.Advance(interval).MustWait(ctx)
	cat := report[*Relisted](ctx, r).Catalog
	if len(cat.Tools) != 2 {
		t.Fatalf("re-listed %d tools, want v0 and v1", len(cat.Tools))
	}
}
