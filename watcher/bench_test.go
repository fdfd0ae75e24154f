package watcher_test

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/fsnotify/fsnotify"

	"github.com/mcpvisor/mcpvisor/watcher"
)

// BenchmarkWatcher_Burst10000Events drives 10,000 events for a configured
// file through the watcher in one burst and checks that they produce exactly
// one notification. It reports the process CPU time (user+system, all
// threads: the sender, the watcher's loop, the runtime) per event as
// ns/event. Events come from the fake Notifier and time from the mock clock,
// so the burst can never split however the machine is loaded; the cost
// measured is the watcher's own (filtering, dirty-marking, one debounce
// Reset per event), plus the mock clock's bookkeeping, not the kernel's.
func BenchmarkWatcher_Burst10000Events(b *testing.B) {
	const events = 10_000
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := tempDir(b)
	cfg := filepath.Join(dir, "config.json")
	writeFile(b, cfg, "v0")

	mClock := quartz.NewMock(b).WithLogger(quartz.NoOpLogger)
	fake := newFakeNotifier()
	changes := make(chan []string, 1)
	w, err := watcher.New([]string{cfg}, watcher.Options{
		Clock:       mClock,
		NewNotifier: fake.factory(),
		OnChange:    func(paths []string) { changes <- paths },
	})
	if err != nil {
		b.Fatal(err)
	}
	defer closeAndWait(b, w)

	cpuBefore := cpuTime(b)
	round := 0
	for b.Loop() {
		round++
		writeFile(b, cfg, fmt.Sprint("v", round))
		ev := fsnotify.Event{Name: cfg, Op: fsnotify.Write}
		for range events {
			fake.events <- ev // the loop always drains; no test helper overhead
		}
		// An unrelated event as a barrier: its send completes only once the
		// 10,000th has been handled (its debounce Reset done).
		fake.send(ctx, b, filepath.Join(dir, "unrelated"), fsnotify.Write)
		if d, ok := mClock.Peek(); !ok || d != watcher.DefaultDebounce {
			b.Fatalf("next deadline = %v (pending %v), want the quiet window %v", d, ok, watcher.DefaultDebounce)
		}
		_, wait := mClock.AdvanceNext()
		wait.MustWait(ctx)
		select {
		case got := <-changes:
			if len(got) != 1 || got[0] != cfg {
				b.Fatalf("notification %v, want [%s]", got, cfg)
			}
		case <-ctx.Done():
			b.Fatal("no notification for the burst")
		}
		// The burst's timers are gone, so no second notification can follow.
		if d, ok := mClock.Peek(); ok {
			b.Fatalf("timer still pending in %v after the notification", d)
		}
	}
	cpu := cpuTime(b) - cpuBefore
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(round*events), "ns/event")
	select {
	case got := <-changes:
		b.Fatalf("extra notification %v", got)
	default:
	}
}

// cpuTime is the CPU time the process has used so far, all threads.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
