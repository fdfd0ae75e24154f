package verbatim_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The package starts no goroutine; the go-sdk sessions and HTTP servers
// its tests start must be gone when they end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
