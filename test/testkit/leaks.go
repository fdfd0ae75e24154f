package testkit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// OpenFDs maps this process's open file descriptors to what they point
// at. Compare two listings to find descriptors a run left open; the
// listing's own descriptor is closed by the time it returns, and skipped.
func OpenFDs(t testing.TB) map[string]string {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue // the directory's own fd, closed by now
		}
		out[e.Name()] = target
	}
	return out
}

// Children lists, sorted, the processes whose parent is this process,
// zombies included (a zombie is a child nobody reaped).
func Children(t testing.TB) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
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
