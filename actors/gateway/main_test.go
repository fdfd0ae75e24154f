package gateway_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// Every goroutine a test starts (the gateway's, the go-sdk's sessions,
// HTTP servers and clients) must be gone when the tests end.
func TestMain(m *testing.M) {
	testkit.RunGuesser() // re-executed as another user by a test
	goleak.VerifyTestMain(testkit.WithTempCache(m))
}
