package e2e_test

import (
	"os"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// bin is the mcpvisor binary, built once; `bin example-server` is the
// example MCP server every test here supervises.
var bin string

func TestMain(m *testing.M) {
	if cfg := os.Getenv(embedderEnv); cfg != "" {
		os.Exit(runEmbedder(cfg))
	}
	os.Exit(testkit.MainWithBinary(m, &bin))
}
