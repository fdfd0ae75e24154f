package cli_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

func TestMain(m *testing.M) {
	if os.Getenv(squatEnv) != "" {
		os.Exit(squat())
	}
	goleak.VerifyTestMain(testkit.WithTempCache(m))
}
