package actorstest

import (
	"context"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
)

// barrier is a user message every actor ignores; protoactor answers it
// itself once the actor's Receive has handled it (actor.AutoRespond).
type barrier struct{}

// Passed is the barrier's answer.
type Passed struct{}

// GetAutoResponse implements actor.AutoRespond.
func (*barrier) GetAutoResponse(actor.Context) any { return &Passed{} }

// Barrier returns once pid has handled every message sent to it before
// the call: the barrier goes through the same mailbox, behind them. It
// proves that an injected message was handled, or that nothing else
// happened, without a timeout. A stopped actor never answers, and ctx's
// end fails the test.
func Barrier(ctx context.Context, t testing.TB, sys *actor.ActorSystem, pid *actor.PID) {
	t.Helper()
	// No future timeout: protoactor's races on late answers (libraries.md
	// §0.7); ctx is the bound.
	f := sys.Root.RequestFuture(pid, &barrier{}, -1)
	answered := make(chan error, 1)
	go func() {
		_, err := f.Result()
		answered <- err
	}()
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("barrier through %s: %v", pid.Id, err)
		}
	case <-ctx.Done():
		t.Fatalf("barrier through %s: no answer: %v", pid.Id, ctx.Err())
	}
}
