package fleet

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startGroup starts argv as the leader of a process group of its own, as
// the session starts a stdio server, and kills the group at the end.
func startGroup(t *testing.T, argv ...string) int {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return pid
}

// The reading sums the run and run-queue time of every process of a
// group, its children included: a shell whose child spins is busy, one
// whose child sleeps is idle. The spinner is read until it has used
// 50 ms of CPU (bounded by the test's deadline); by then the sleeper's
// group has used almost nothing.
func TestReadGroupCPU_CountsTheWholeGroup(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// "; exit" keeps sh from exec'ing its last command: the work is in a
	// child of the group's leader, as under npx or sh -c.
	spinner := startGroup(t, "sh", "-c", "sh -c 'while :; do :; done'; exit")
	sleeper := startGroup(t, "sh", "-c", "sleep 600; exit")
	groups := map[int]bool{spinner: true, sleeper: true}
	known := map[int]int{}
	var got map[int]uint64
	for {
		got = readGroupCPU(groups, known)
		if got[spinner] >= uint64(50*time.Millisecond) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the spinning group never reached 50ms of CPU: %v", got)
		default:
		}
	}
	if s := got[sleeper]; s == 0 || s >= uint64(25*time.Millisecond) {
		t.Fatalf("sleeping group: %v of run and wait time, want some (it started) but under 25ms", time.Duration(s))
	}
	if known[spinner] != spinner || known[sleeper] != sleeper {
		t.Fatalf("the cache has the leaders in groups %d and %d, want their own", known[spinner], known[sleeper])
	}
	// A pid gone from /proc leaves the cache; a cached group is believed.
	known[1<<30] = spinner
	if readGroupCPU(groups, known); len(known) == 0 || known[1<<30] != 0 {
		t.Fatalf("a pid that is gone stayed in the cache")
	}
	if _, ok := readGroupCPU(map[int]bool{1 << 30: true}, known)[1<<30]; ok {
		t.Fatal("a group with no process was read")
	}
}

func TestIdleSince(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name     string
		prev, at cpuReading
		want     bool
	}{
		{"nothing used", cpuReading{ns: 5e6, at: at}, cpuReading{ns: 5e6, at: at.Add(20 * time.Millisecond)}, true},
		{"just under 5%", cpuReading{ns: 0, at: at}, cpuReading{ns: 999_999, at: at.Add(20 * time.Millisecond)}, true},
		{"5%", cpuReading{ns: 0, at: at}, cpuReading{ns: 1_000_000, at: at.Add(20 * time.Millisecond)}, false},
		{"runnable the whole time", cpuReading{ns: 0, at: at}, cpuReading{ns: 2e7, at: at.Add(20 * time.Millisecond)}, false},
		{"no time passed", cpuReading{ns: 0, at: at}, cpuReading{ns: 0, at: at}, false},
		{"counter went back (a new process)", cpuReading{ns: 9e6, at: at}, cpuReading{ns: 0, at: at.Add(time.Second)}, false},
	} {
		if got := idleSince(c.prev, c.at); got != c.want {
			t.Errorf("%s: idle = %v, want %v", c.name, got, c.want)
		}
	}
}

// BenchmarkReadGroupCPU is the cost of one sample: a walk of /proc for 8
// connecting groups.
func BenchmarkReadGroupCPU(b *testing.B) {
	groups := map[int]bool{}
	for range 8 {
		cmd := exec.Command("sleep", "600")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		groups[cmd.Process.Pid] = true
		b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	}
	known := map[int]int{}
	for b.Loop() {
		if len(readGroupCPU(groups, known)) != len(groups) {
			b.Fatal("a group was not read")
		}
	}
}
