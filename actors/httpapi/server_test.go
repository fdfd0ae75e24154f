package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// serve runs Serve on a loopback port until the returned stop is called;
// stop returns Serve's error.
func serve(t *testing.T, fleet httpapi.Fleet) (srv *httpapi.Server, base string, stop func() error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err = httpapi.New(httpapi.Options{Fleet: fleet, Token: testToken, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, l) }()
	var once bool
	var result error
	stop = func() error {
		if !once {
			once = true
			cancel()
			result = <-served
		}
		return result
	}
	t.Cleanup(func() { _ = stop() })
	return srv, "http://" + l.Addr().String(), stop
}

// Shutting down ends open event streams and in-flight calls at once, and
// Serve returns nil.
func TestServe_ShutdownEndsStreamsAndCalls(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	calling := make(chan struct{})
	fleet := &httpapitest.Fleet{CallFunc: func(ctx context.Context, _ string, _ any) (*mcp.CallToolResult, error) {
		close(calling)
		<-ctx.Done() // a long call; the shutdown cancels it
		return nil, fmt.Errorf("%w: %w", actors.ErrCanceled, ctx.Err())
	}}
	_, base, stop := serve(t, fleet)

	_, r := openEvents(ctx, t, base+"/api/v1/events?since=0")
	r.nextComment()
	callDone := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/tools/call", strings.NewReader(`{"name": "alpha__sleep"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+testToken)
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
			if res.StatusCode != http.StatusServiceUnavailable {
				err = fmt.Errorf("call answered %d during shutdown, want 503", res.StatusCode)
			}
		}
		callDone <- err
	}()
	<-calling

	if err := stop(); err != nil {
		t.Fatalf("Serve = %v, want nil", err)
	}
	if _, err := r.next(); !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("stream after shutdown: %v, want it ended", err)
	}
	if err := <-callDone; err != nil {
		t.Fatal(err)
	}
	if n := fleet.Following(); n != 0 {
		t.Fatalf("%d feeds still open after Serve returned", n)
	}
}

// While serving, every event feeds the metrics (here: a plan that
// settles is measured). Serve drains the feed before it returns.
func TestServe_FeedsEventsToMetrics(t *testing.T) {
	t.Parallel()
	fleet := &httpapitest.Fleet{}
	followed := fleet.Followers()
	srv, _, stop := serve(t, fleet)
	<-followed // the metrics feed
	fleet.Publish(&messages.PlanComputed{Generation: 1, Steps: []messages.PlanStep{{Server: "alpha", Action: messages.ActionStart}}})
	fleet.Publish(stateEvent("alpha"))
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	wantLines(t, scrape(t, srv.Metrics().Handler()),
		`mcpvisor_reconcile_duration_seconds_count 1`,
		`mcpvisor_events_total{type="server.state"} 1`,
	)
}
