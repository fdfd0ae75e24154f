package fleet

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// proc is a /proc with the given processes: pid → stat line and the
// schedstat of each of its threads.
type proc map[int]struct {
	stat    string
	threads []string
}

func (p proc) fs() fstest.MapFS {
	m := fstest.MapFS{"self": &fstest.MapFile{Mode: fs.ModeDir}, "meminfo": &fstest.MapFile{Data: []byte("MemTotal: 1 kB\n")}}
	for pid, pr := range p {
		dir := strconv.Itoa(pid)
		m[dir+"/stat"] = &fstest.MapFile{Data: []byte(pr.stat)}
		for i, sched := range pr.threads {
			m[dir+"/task/"+strconv.Itoa(pid+i)+"/schedstat"] = &fstest.MapFile{Data: []byte(sched)}
		}
	}
	return m
}

// The reading sums the run and run-queue time of every thread of every
// process of a group, its children included (a shell whose child spins
// is busy), parses command names with spaces and parentheses, and reads
// nothing of other groups.
func TestReadGroupCPU_CountsTheWholeGroup(t *testing.T) {
	t.Parallel()
	p := proc{
		100: {"100 (sh) S 1 100 100 0 -1", []string{"1000 500 3"}},                      // leader
		101: {"101 (node (x) y) R 100 100 100 0 -1", []string{"7000 2000 9", "30 0 1"}}, // its child, two threads
		200: {"200 (sleep) S 1 200 200 0 -1", []string{"40 2 1"}},                       // another group
		300: {"300 (other) S 1 300 300 0 -1", []string{"99999 0 1"}},                    // not asked for
		400: {"400 garbled", nil},                                                       // no ")": skipped
	}
	known := map[int]int{}
	got := readGroupCPU(p.fs(), map[int]bool{100: true, 200: true, 999: true}, known)
	want := map[int]uint64{100: 1000 + 500 + 7000 + 2000 + 30, 200: 42}
	if !maps.Equal(got, want) {
		t.Fatalf("readGroupCPU = %v, want %v (999 has no process: absent)", got, want)
	}
	if !maps.Equal(known, map[int]int{100: 100, 101: 100, 200: 200, 300: 300}) {
		t.Fatalf("known = %v: want every parsed pid's group", known)
	}

	// A cached group is believed (the stat is not read again); a pid gone
	// from /proc leaves the cache.
	known[101] = 200
	known[1<<30] = 100
	got = readGroupCPU(p.fs(), map[int]bool{100: true, 200: true}, known)
	if got[200] != 42+9030 || got[100] != 1500 {
		t.Fatalf("with 101 cached in group 200: %v", got)
	}
	if _, ok := known[1<<30]; ok {
		t.Fatal("a pid that is gone stayed in the cache")
	}
	if readGroupCPU(fstest.MapFS{}, map[int]bool{100: true}, known) == nil || len(known) != 0 {
		t.Fatalf("an empty /proc: want an empty reading and an empty cache, cache %v", known)
	}
}

// Read from the host's /proc, a group that was started is there, under
// its leader, with the time its leader spent starting.
func TestReadGroupCPU_ReadsTheHostsProc(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skipf("no /proc here (%v): connects are then never sampled", err)
	}
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	known := map[int]int{}
	got := readGroupCPU(hostProc, map[int]bool{pid: true}, known)
	if got[pid] == 0 || known[pid] != pid {
		t.Fatalf("group %d: reading %v, known %v: want its leader's time, under its own group", pid, got, known)
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
		if len(readGroupCPU(hostProc, groups, known)) != len(groups) {
			b.Fatal("a group was not read")
		}
	}
}
