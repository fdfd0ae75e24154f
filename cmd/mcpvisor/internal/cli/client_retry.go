package cli

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryWait bounds how long the CLI waits before it sends a throttled
// request again: the daemon's Retry-After is about a second (one guess a
// second refills its budget), and a command should not hang on a
// daemon that asks for more.
const maxRetryWait = 5 * time.Second

// retryWait is how long a 429 answer asks to wait: its Retry-After in
// seconds, at most maxRetryWait; a second when it names none that can be
// read (an HTTP date included: the daemon never sends one).
func retryWait(h http.Header) time.Duration {
	secs, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || secs < 0 {
		return time.Second
	}
	return min(time.Duration(secs)*time.Second, maxRetryWait)
}

// pause waits d on the client's clock (tags "cli", "retry-after"), or
// until ctx ends.
func (c *apiClient) pause(ctx context.Context, d time.Duration) error {
	timer := c.clock.NewTimer(d, "cli", "retry-after")
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
