package journal_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// stderrTail is a failure's tail: 16 lines of 1 KiB, each its own string
// (as real failures carry their own).
func stderrTail(i int) []string {
	tail := make([]string, 16)
	for k := range tail {
		tail[k] = strings.Repeat(string(rune('a'+(i+k)%26)), 1024)
	}
	return tail
}

// Publishing one event: a ready transition, and a failure carrying a
// 16 KiB stderr tail (its size is measured as JSON).
func BenchmarkJournal_Publish(b *testing.B) {
	ready := &messages.ServerStateChanged{Server: "alpha", From: messages.StateStarting, To: messages.StateReady, Reason: "connected", PID: 1234}
	failed := &messages.ServerStateChanged{Server: "alpha", From: messages.StateReady, To: messages.StateFailed, StderrTail: stderrTail(0)}
	for _, bc := range []struct {
		name string
		ev   messages.Event
	}{{"ready", ready}, {"failed-16KiB-tail", failed}} {
		b.Run(bc.name, func(b *testing.B) {
			j := journal.New(journal.Options{})
			for b.Loop() {
				j.Publish(bc.ev)
			}
		})
	}
}

// The heap a stderr-heavy journal keeps: 20,000 failures with 16 KiB
// tails, bounded by count alone (as before) and by the default 8 MiB.
func BenchmarkJournal_StderrHeavyMemory(b *testing.B) {
	for _, bc := range []struct {
		name     string
		maxBytes int
	}{{"count-only", 1 << 40}, {"default-bytes", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				before := heapInUse()
				j := journal.New(journal.Options{MaxBytes: bc.maxBytes})
				for i := range 20000 {
					j.Publish(&messages.ServerStateChanged{Server: "noisy", From: messages.StateStarting, To: messages.StateFailed, StderrTail: stderrTail(i)})
				}
				b.ReportMetric(float64(heapInUse()-before)/(1<<20), "MiB-kept")
				runtime.KeepAlive(j)
			}
		})
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
