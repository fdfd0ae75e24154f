package actors_test

import (
	"context"
	"testing"

	"github.com/coder/quartz"
)

// whileStarting runs each request on its own goroutine while a server is
// starting, checks that each waits for it (its start-wait timer, trapped
// on clock, is armed), then calls up (which lets the server come up, or
// fail) and returns every request's answer, in order.
func whileStarting(t *testing.T, ctx context.Context, clock *quartz.Mock, up func(), requests ...func() error) []error {
	t.Helper()
	trap := clock.Trap().NewTimer("supervisor", "start-wait")
	defer trap.Close()
	answers := make([]chan error, len(requests))
	for i, req := range requests {
		answers[i] = make(chan error, 1)
		go func() { answers[i] <- req() }()
	}
	for range requests {
		trap.MustWait(ctx).MustRelease(ctx)
	}
	up()
	out := make([]error, len(requests))
	for i, ch := range answers {
		select {
		case out[i] = <-ch:
		case <-ctx.Done():
			t.Fatalf("request %d still waiting: %v", i, ctx.Err())
		}
	}
	return out
}
