package gateway_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// 64 callers call the gateway at once, 20 calls each, over the real path
// (gateway session, Supervisor, session actor, upstream server in
// memory), some asking for progress, from 64 sessions or all on one (as
// over stdio): every call gets its own answer (the echo of its own
// message), and on the wire every tools/call written got exactly one
// response. The test's context is the only bound: a lost or stuck answer
// fails it rather than hanging.
func TestGateway_64CallersEachAnsweredExactlyOnce(t *testing.T) {
	t.Parallel()
	for _, sessions := range []int{64, 1} {
		t.Run(fmt.Sprintf("%d sessions", sessions), func(t *testing.T) { callersAnsweredOnce(t, sessions) })
	}
}

func callersAnsweredOnce(t *testing.T, nsessions int) {
	ctx := testContext(t)
	r := startRelayRig(t, ctx, nil, nil)
	const callers, calls = 64, 20

	changed := make(chan struct{}, 1)
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}}
	counters := make([]*testkit.AnswerCounter, nsessions)
	sessions := make([]*mcp.ClientSession, nsessions)
	for i := range nsessions {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := r.gw.Server().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		counters[i] = testkit.CountAnswers(ct, "tools/call")
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "caller", Version: "1"}, opts).Connect(ctx, counters[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cs.Close()
			_ = ss.Wait()
		})
		sessions[i] = cs
	}
	waitListed(t, ctx, sessions[0], changed, "demo__echo")

	for _, err := range testkit.CallersAnswered(ctx, sessions, "demo__echo", callers, calls) {
		t.Error(err)
	}
	for i, c := range counters {
		for _, err := range c.Check(callers / nsessions * calls) {
			t.Errorf("session %d: %v", i, err)
		}
	}
}

// waitListed waits, list_changed by list_changed, until cs lists tool.
func waitListed(t *testing.T, ctx context.Context, cs *mcp.ClientSession, changed <-chan struct{}, tool string) {
	t.Helper()
	for {
		for tl, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if tl.Name == tool {
				return
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("%s never listed", tool)
		}
	}
}
