package actorstest

import (
	"context"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// DefaultTimeout bounds Context.
const DefaultTimeout = testctx.DefaultTimeout

// Context returns the bounded test context, the only deadline a test
// needs: it ends DefaultTimeout from now, or shortly before the test
// binary's -timeout, whichever is first, and at the test's cleanup.
func Context(t testing.TB) context.Context { return testctx.Context(t) }

// ContextTimeout is Context with another bound, for tests that are slow
// by nature (a daemon built and started, a real server installed).
func ContextTimeout(t testing.TB, d time.Duration) context.Context { return testctx.WithTimeout(t, d) }
