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
	// Re-executed as the benchmark's pass-through server (one stdio hop).
	if upstream := os.Getenv(passThroughEnv); upstream != "" {
		os.Exit(runPassThrough(upstream))
	}
	// Re-executed as a server that writes its results byte for byte.
	if os.Getenv(rawServerEnv) != "" {
		os.Exit(rawServer())
	}
	os.Exit(testkit.MainWithBinary(m, &bin))
}
