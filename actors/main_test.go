package actors_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(testkit.WithTempCache(m))
}
