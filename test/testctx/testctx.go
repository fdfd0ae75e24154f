package testctx

import (
	"context"
	"testing"
	"time"
)

// DefaultTimeout bounds Context.
const DefaultTimeout = 60 * time.Second

// deadlineMargin is left before the test binary's own deadline, so that a
// hung test fails with its own message instead of the binary's panic.
const deadlineMargin = 5 * time.Second

// Context returns the bounded test context, the only deadline a test
// needs: it ends DefaultTimeout from now, or shortly before the test
// binary's -timeout, whichever is first, and at the test's cleanup.
func Context(t testing.TB) context.Context {
	return WithTimeout(t, DefaultTimeout)
}

// WithTimeout is Context with another bound, for tests that are slow
// by nature (a daemon built and started, a real server installed).
func WithTimeout(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	deadline := time.Now().Add(d)
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := dt.Deadline(); ok && dl.Add(-deadlineMargin).Before(deadline) {
			deadline = dl.Add(-deadlineMargin)
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	t.Cleanup(cancel)
	return ctx
}
