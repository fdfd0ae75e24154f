package httpapi_test

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// bin is the mcpvisor binary, built once: `bin example-server` is the
// server the tests against a real Supervisor supervise.
var bin string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "mcpvisor-httpapi-")
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
