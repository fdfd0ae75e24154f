package actorstest

import (
	"syscall"
	"testing"
	"time"
)

// CPUPerOp starts counting the process's CPU time (user and system, every
// thread, the garbage collector's included); the function it returns
// reports it per op as "cpu-ns/op". On a machine shared with other work,
// a benchmark's wall time per op grows with the load while its CPU time
// does not: compare variants by the latter. Call the function after the
// b.Loop loop.
func CPUPerOp(b *testing.B) func() {
	b.Helper()
	start := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
