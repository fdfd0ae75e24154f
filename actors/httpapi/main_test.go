package httpapi_test

import (
	"flag"
	"os"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// bin is the mcpvisor binary, built once: `bin example-server` is the
// server the tests against a real Supervisor supervise.
var bin string

func TestMain(m *testing.M) {
	testkit.RunGuesser() // re-executed as another user by a test
	flag.Parse()
	os.Exit(testkit.MainWithBinary(m, &bin))
}
