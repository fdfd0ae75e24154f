package session

import (
	"syscall"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/benchcpu"
)

// BenchmarkRelist_StdioFlood is finding R1's flood, 45,634
// tools/list_changed from a stdio server, and what it costs the session:
// the tools/list the server answered (the connect's included), the CPU
// time of this process (the client; the server is a child) and its peak
// resident set. Before the fix the same flood cost a tools/list per
// notification (docs/benchmarks.md).
//
//	go test -run '^$' -bench Relist_StdioFlood -benchtime 3x ./actors/internal/session/
func BenchmarkRelist_StdioFlood(b *testing.B) {
	const notifications = 45634
	var lists int
	report := benchcpu.PerOp(b)
	for b.Loop() {
		lists += stdioFlood(b, notifications)
	}
	report()
	b.ReportMetric(float64(lists)/float64(b.N), "tools/list/op")
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB")
}
