package chaos_test

import (
	"flag"
	"os"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// bin is the mcpvisor binary, built once; `bin example-server` is the
// example MCP server every server of the fleet runs.
var bin string

// Flags; CHAOS_SEED and CHAOS_DURATION in the environment do the same
// (the flags win). See chaosConfig.
var (
	seedFlag     = flag.Int64("chaos.seed", 0, "seed of the chaos schedule (0: CHAOS_SEED, else a fresh one)")
	durationFlag = flag.Duration("chaos.duration", 0, "how long faults are injected (0: CHAOS_DURATION, else 45s)")
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(testkit.MainWithBinary(m, &bin))
}
