package daemon_test

import (
	"os"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// bin is the mcpvisor binary, built once; it is the daemon, the CLI and
// (`bin example-server`) the supervised MCP server.
var bin string

func TestMain(m *testing.M) {
	os.Exit(testkit.MainWithBinary(m, &bin))
}
