package gateway_test

import (
	"os"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// bin is the mcpvisor binary, built once: `bin serve` is the gateway under
// test and `bin example-server` every server it supervises.
var bin string

func TestMain(m *testing.M) {
	os.Exit(testkit.MainWithBinary(m, &bin))
}
