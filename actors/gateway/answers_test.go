package gateway_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
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
	// 1,280 calls take about 6s under -race on a quiet 2-core machine.
	ctx := actorstest.ContextTimeout(t, 2*time.Minute)
	gw, _ := realGateway(t, ctx)
	const callers, calls = 64, 20

	counters := make([]*testkit.AnswerCounter, nsessions)
	sessions := make([]*mcp.ClientSession, nsessions)
	for i := range nsessions {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := gw.Server().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		counters[i] = testkit.CountAnswers(ct, "tools/call")
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "caller", Version: "1"}, nil).Connect(ctx, counters[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cs.Close()
			_ = ss.Wait()
		})
		sessions[i] = cs
	}

	for _, err := range testkit.CallersAnswered(ctx, sessions, "demo__echo", callers, calls) {
		t.Error(err)
	}
	for i, c := range counters {
		for _, err := range c.Check(callers / nsessions * calls) {
			t.Errorf("session %d: %v", i, err)
		}
	}
}
