package benchcpu_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/test/benchcpu"
	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// A millisecond of work on the CPU shows in the process's CPU time.
func TestProcess_CountsWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no getrusage")
	}
	ctx := testctx.Context(t)
	before := benchcpu.Process()
	for benchcpu.Process()-before < time.Millisecond {
		if ctx.Err() != nil {
			t.Fatalf("the CPU time stayed at %v", benchcpu.Process())
		}
	}
}
