package cli

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// throttlingDaemon answers its first throttled requests 429 with
// Retry-After retryAfter (as the API does while someone guesses tokens),
// the others 200 with {}, and counts them all.
func throttlingDaemon(t *testing.T, throttled int32, retryAfter string) (*apiClient, *atomic.Int32) {
	t.Helper()
	var seen atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if seen.Add(1) <= throttled {
			w.Header().Set("Retry-After", retryAfter)
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error": "too many wrong bearer tokens lately"}`))
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(ts.Close)
	c := newAPIClient(strings.TrimPrefix(ts.URL, "http://"), "t", newDaemonDialer("", true))
	t.Cleanup(c.close)
	return c, &seen
}

// While another user's guesses keep the daemon throttling, a request
// the daemon turned away (429) is sent once more after Retry-After,
// waited on the client's clock, at most maxRetryWait.
func TestSend_RetriesOnceAfterRetryAfter(t *testing.T) {
	t.Parallel()
	for retryAfter, want := range map[string]time.Duration{"2": 2 * time.Second, "3600": maxRetryWait, "soon": time.Second} {
		ctx := actorstest.Context(t)
		c, seen := throttlingDaemon(t, 1, retryAfter)
		clock := quartz.NewMock(t)
		c.clock = clock
		trap := clock.Trap().NewTimer("cli", "retry-after")
		done := make(chan error, 1)
		go func() {
			_, err := c.do(ctx, http.MethodPost, "/api/v1/tools/call", map[string]string{"name": "x"}, nil)
			done <- err
		}()
		call := trap.MustWait(ctx)
		if call.Duration != want {
			t.Errorf("Retry-After %q: waits %s, want %s", retryAfter, call.Duration, want)
		}
		call.MustRelease(ctx)
		trap.Close()
		clock.Advance(call.Duration).MustWait(ctx)
		if err := <-done; err != nil {
			t.Errorf("Retry-After %q: %v, want the retried request's answer", retryAfter, err)
		}
		if n := seen.Load(); n != 2 {
			t.Errorf("Retry-After %q: the daemon saw %d requests, want 2 (one retry)", retryAfter, n)
		}
	}
}

// Only once: a second 429 is an error that says what goes on; and the
// wait ends with the command's context.
func TestSend_RetriesOnlyOnceAndNotPastTheContext(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	c, seen := throttlingDaemon(t, 10, "1")
	clock := quartz.NewMock(t)
	c.clock = clock
	trap := clock.Trap().NewTimer("cli", "retry-after")
	defer trap.Close()
	done := make(chan error, 1)
	go func() { _, err := c.do(ctx, http.MethodGet, "/api/v1/status", nil, nil); done <- err }()
	call := trap.MustWait(ctx)
	call.MustRelease(ctx)
	clock.Advance(call.Duration).MustWait(ctx)
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "guessing") {
		t.Fatalf("throttled twice: %v, want an error saying someone is guessing tokens", err)
	}
	if n := seen.Load(); n != 2 {
		t.Fatalf("the daemon saw %d requests, want 2", n)
	}

	cctx, cancel := context.WithCancel(ctx)
	go func() { _, err := c.do(cctx, http.MethodGet, "/api/v1/status", nil, nil); done <- err }()
	trap.MustWait(ctx).MustRelease(ctx)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the context ended during the wait: %v, want context.Canceled", err)
	}
}
