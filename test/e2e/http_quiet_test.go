package e2e_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// quietServer serves a go-sdk server with an event store behind a stream
// cutter, and a supervisor of it on clock, with probing off; it returns
// once the server is ready.
func quietServer(t *testing.T, ctx context.Context, clock quartz.Clock) (*streamCutter, *actorstest.Recorder, int) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "quiet", Version: "1"}, nil)
	cutter := newStreamCutter(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}))
	ts := cutter.serve(t)
	t.Cleanup(func() { closeHTTPServer(ts, srv) })
	cfg := writeJSONConfig(t, `{"mcpServers": {"remote": {"type": "http", "url": "`+ts.URL+`/mcp"}}}`)
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff, ProbeInterval: -1, Clock: clock})
	rec := actorstest.Record(t, sup)
	rec.WaitState(ctx, 0, "remote", messages.StateReady)
	cutter.waitFlowing(ctx, t)
	return cutter, rec, rec.Len()
}

// A quiet standalone GET stream (no event ever) that a proxy's idle
// timeout closes again and again, each time after it had been open a
// while, is resumed every time: the session stays ready. (The go-sdk alone
// counts each such reconnection against its budget of 5 and failed the
// session at the sixth.)
func TestHTTP_QuietStreamClosedOftenStaysReady(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t)
	cutter, rec, mark := quietServer(t, ctx, clock)
	for range 10 {
		clock.Advance(time.Second).MustWait(ctx) // the stream has been open a second
		cutter.cut(ctx, t, "get")
		cutter.waitFlowing(ctx, t)
	}
	if changes := rec.StateChanges(mark, "remote"); len(changes) != 0 {
		t.Fatalf("the server changed state: %v\n%s", changes, rec.Dump())
	}
}

// A server that closes the stream as soon as it is open, again and
// again, spends the reconnection budget: that is a ServerFailed.
func TestHTTP_StreamClosedAtOnceSpendsTheBudget(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t)
	cutter, rec, mark := quietServer(t, ctx, clock)
	for range 5 {
		cutter.cut(ctx, t, "get")
		cutter.waitFlowing(ctx, t)
	}
	cutter.cut(ctx, t, "get")
	_, failed := rec.WaitState(ctx, mark, "remote", messages.StateFailed)
	if !strings.Contains(failed.Error, "exceeded 5 retries") {
		t.Fatalf("failure = %q, want the spent budget named", failed.Error)
	}
}
