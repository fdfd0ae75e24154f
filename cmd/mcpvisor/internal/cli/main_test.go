package cli_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

func TestMain(m *testing.M) {
	if where := os.Getenv(squatEnv); where != "" {
		os.Exit(squat(where))
	}
	goleak.VerifyTestMain(testkit.WithTempCache(m))
}
