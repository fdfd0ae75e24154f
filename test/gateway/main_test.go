package gateway_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// bin is the mcpvisor binary, built once: `bin serve` is the gateway under
// test and `bin example-server` every server it supervises.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpvisor-gateway-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin, err = testkit.BuildBinary(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build mcpvisor:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
