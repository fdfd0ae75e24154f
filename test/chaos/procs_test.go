package chaos_test

import (
	"bytes"
	"fmt"
	"os"
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
