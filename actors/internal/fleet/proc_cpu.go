package fleet

import (
	"bytes"
	"io/fs"
	"os"
	"strconv"
	"time"
)

// The connect limit counts a connect only while its processes compete for
// CPU (reconciler/fleet_connects.go). The fleet actor samples that here,
// on a goroutine of its own, while servers wait for a slot: from
// /proc/PID/task/TID/schedstat, the time each thread of each process of a
// server's process group (the server started it as its leader, so its
// wrappers' children are counted too) spent on a CPU and waiting in a run
// queue for one. A connect whose group accumulated less than
// idleDemand of the interval is waiting on something else (a timer, the
// network, a lock); one that ran, or wanted to run, is busy. Where /proc
// cannot be read, nothing is sampled and every connect counts until it
// ends, as before.

// idleDemand is the share of one CPU, running or runnable, under which a
// connecting process group counts as idle.
const idleDemand = 0.05

// cpuReading is a process group's run and run-queue time, and when it was
// taken.
type cpuReading struct {
	ns uint64
	at time.Time
}

// hostProc is the host's /proc, which readGroupCPU reads in production.
var hostProc = os.DirFS("/proc")

// readGroupCPU reads the run and run-queue time of every process group
// in groups (leader pids), summed over their processes and threads, from
// proc (a /proc file system). A group with no process left, or that proc
// does not show, is absent. known maps pids to their process groups as
// earlier reads found them (a process seldom changes its group), so that
// only new pids are read for it; it is updated, and pids gone from proc
// are dropped from it.
func readGroupCPU(proc fs.FS, groups map[int]bool, known map[int]int) map[int]uint64 {
	entries, err := fs.ReadDir(proc, ".")
	if err != nil {
		return nil
	}
	out := map[int]uint64{}
	seen := make(map[int]bool, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		seen[pid] = true
		pgrp, ok := known[pid]
		if !ok {
			if pgrp, ok = processGroup(proc, e.Name()); !ok {
				continue
			}
			known[pid] = pgrp
		}
		if groups[pgrp] {
			out[pgrp] += processSchedTime(proc, e.Name())
		}
	}
	for pid := range known {
		if !seen[pid] {
			delete(known, pid)
		}
	}
	return out
}

// processGroup is the process group of pid, from PID/stat (field 5,
// after the command name, which may hold spaces and parentheses).
func processGroup(proc fs.FS, pid string) (int, bool) {
	b, err := fs.ReadFile(proc, pid+"/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 {
		return 0, false
	}
	pgrp, err := strconv.Atoi(string(f[2]))
	return pgrp, err == nil
}

// processSchedTime sums the first two fields of PID/task/*/schedstat
// (time on a CPU, time waiting for one, in ns) over pid's threads.
func processSchedTime(proc fs.FS, pid string) uint64 {
	dir := pid + "/task"
	tasks, err := fs.ReadDir(proc, dir)
	if err != nil {
		return 0
	}
	var sum uint64
	for _, task := range tasks {
		b, err := fs.ReadFile(proc, dir+"/"+task.Name()+"/schedstat")
		if err != nil {
			continue
		}
		f := bytes.Fields(b)
		if len(f) < 2 {
			continue
		}
		run, _ := strconv.ParseUint(string(f[0]), 10, 64)
		wait, _ := strconv.ParseUint(string(f[1]), 10, 64)
		sum += run + wait
	}
	return sum
}

// idleSince says whether a group went from prev to now using less than
// idleDemand of one CPU.
func idleSince(prev cpuReading, now cpuReading) bool {
	dt := now.at.Sub(prev.at)
	if dt <= 0 || now.ns < prev.ns {
		return false
	}
	return float64(now.ns-prev.ns) < idleDemand*float64(dt)
}
