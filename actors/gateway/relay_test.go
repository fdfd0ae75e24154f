package gateway_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressLog records the notifications/progress a client gets.
type progressLog struct {
	mu  sync.Mutex
	got []*mcp.ProgressNotificationParams
	ch  chan struct{}
}

func newProgressLog() *progressLog { return &progressLog{ch: make(chan struct{}, 1024)} }

func (l *progressLog) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	l.mu.Lock()
	l.got = append(l.got, req.Params)
	l.mu.Unlock()
	l.ch <- struct{}{}
}

// waitFor waits until n notifications arrived and returns them as
// "token: progress/total" lines.
func (l *progressLog) waitFor(t *testing.T, ctx context.Context, n int) []string {
	t.Helper()
	for {
		l.mu.Lock()
		have := len(l.got)
		var out []string
		for _, p := range l.got {
			out = append(out, fmt.Sprintf("%v: %v/%v", p.ProgressToken, p.Progress, p.Total))
		}
		l.mu.Unlock()
		if have >= n {
			return out
		}
		select {
		case <-l.ch:
		case <-ctx.Done():
			t.Fatalf("got %d progress notifications, want %d: %v", have, n, out)
		}
	}
}

// Two clients call the same tool at once, each with the same progress
// token of its own: each gets the notifications of its call, under its
// own token, and none of the other's.
func TestRelay_ProgressReachesOnlyItsCaller(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := testContext(t)
			r := startRelayRig(t, ctx, nil, nil)
			logA, logB := newProgressLog(), newProgressLog()
			a := r.connect(ctx, p.pin, &mcp.ClientOptions{ProgressNotificationHandler: logA.handler}, demoTools(false)...)
			b := r.connect(ctx, p.pin, &mcp.ClientOptions{ProgressNotificationHandler: logB.handler}, demoTools(false)...)

			var wg sync.WaitGroup
			for _, c := range []struct {
				cs    *mcp.ClientSession
				steps int
			}{{a, 3}, {b, 5}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					params := &mcp.CallToolParams{Name: "demo__progress", Arguments: map[string]any{"steps": c.steps}}
					params.SetProgressToken("mine")
					if got, want := call(t, ctx, c.cs, params), fmt.Sprintf("sent %d progress notifications", c.steps); got != want {
						t.Errorf("result %q, want %q", got, want)
					}
				}()
			}
			wg.Wait()
			// A last call of one step each is the barrier: a client's
			// notifications arrive in order, so once its own is in,
			// anything misrouted earlier would be too.
			for _, cs := range []*mcp.ClientSession{a, b} {
				params := &mcp.CallToolParams{Name: "demo__progress", Arguments: map[string]any{"steps": 1}}
				params.SetProgressToken("last")
				call(t, ctx, cs, params)
			}
			wantA := []string{"mine: 1/3", "mine: 2/3", "mine: 3/3", "last: 1/1"}
			wantB := []string{"mine: 1/5", "mine: 2/5", "mine: 3/5", "mine: 4/5", "mine: 5/5", "last: 1/1"}
			if diff := cmp.Diff(wantA, logA.waitFor(t, ctx, len(wantA))); diff != "" {
				t.Errorf("client A's progress (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantB, logB.waitFor(t, ctx, len(wantB))); diff != "" {
				t.Errorf("client B's progress (-want +got):\n%s", diff)
			}
		})
	}
}
