package chaos_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// signalOurs sends sig to pid if, and only if, it is a process of this
// run (its environment holds the run marker). The pidfd pins the process:
// if pid was reused between the check and the signal, the pidfd still
// names the old, dead process and the signal fails harmlessly, so a
// process of someone else's is never signalled.
func signalOurs(pid int, marker string, sig unix.Signal) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if !hasMarker(pid, marker) {
		return fmt.Errorf("process %d is not one of ours", pid)
	}
	return unix.PidfdSendSignal(fd, sig, nil, 0)
}

// hasMarker reports whether pid's environment holds CHAOS_RUN=marker.
func hasMarker(pid int, marker string) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := []byte("CHAOS_RUN=" + marker)
	return slices.ContainsFunc(bytes.Split(env, []byte{0}), func(kv []byte) bool { return bytes.Equal(kv, want) })
}

// processesWithMarker lists the processes whose environment holds the run
// marker: every server process of the run and whatever they started.
func processesWithMarker(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if hasMarker(pid, marker) {
			out = append(out, pid)
		}
	}
	return out
}

// children lists the processes whose parent is this process, zombies
// included (a zombie is a child nobody reaped).
func children() []int {
	entries, _ := os.ReadDir("/proc")
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 {
			if ppid, _ := strconv.Atoi(fields[1]); ppid == self {
				out = append(out, pid)
			}
		}
	}
	slices.Sort(out)
	return out
}

// openFDs maps this process's open file descriptors to what they point at.
func openFDs() (map[string]string, error) {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue // the directory's own fd, closed by now
		}
		out[e.Name()] = target
	}
	return out, nil
}

// grandchildren reads the pids the wrapped servers' shells appended.
func grandchildren(pidFile string) []int {
	data, _ := os.ReadFile(pidFile)
	var out []int
	for _, l := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(l); err == nil {
			out = append(out, pid)
		}
	}
	return out
}
