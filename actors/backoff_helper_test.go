package actors_test

import (
	"time"

	"github.com/mcpvisor/mcpvisor/reconciler"
)

// reconcilerBackoff is a fixed, jitter-free backoff for tests.
func reconcilerBackoff(d time.Duration) reconciler.Backoff {
	return reconciler.Backoff{Initial: d, Max: d}
}
