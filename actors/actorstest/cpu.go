package actorstest

import (
	"testing"

	"github.com/mcpvisor/mcpvisor/test/benchcpu"
)

// CPUPerOp starts counting the process's CPU time (user and system, every
// thread, the garbage collector's included); the function it returns
// reports it per op as "cpu-ns/op". On a machine shared with other work,
// a benchmark's wall time per op grows with the load while its CPU time
// does not: compare variants by the latter. Call the function after the
// b.Loop loop.
func CPUPerOp(b *testing.B) func() {
	b.Helper()
	return benchcpu.PerOp(b)
}
