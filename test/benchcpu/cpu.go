package benchcpu

import "testing"

// PerOp starts counting the process's CPU time; the function it returns,
// called after the b.Loop loop, reports it per op as "cpu-ns/op".
func PerOp(b *testing.B) func() {
	b.Helper()
	start := Process()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(Process()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
