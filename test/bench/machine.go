package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// What the report says about where its figures come from: the machine,
// the mcpvisor revision measured and the load on the machine, which
// every section quotes at its start and end.

// machine describes where the figures come from.
func machine() string {
	model := "unknown"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	var u unix.Utsname
	_ = unix.Uname(&u)
	node := "not found"
	if out, err := exec.Command("node", "--version").Output(); err == nil {
		node = strings.TrimSpace(string(out))
	}
	return fmt.Sprintf("# mcpvisor benchmarks\n\nmachine: %d CPUs (nproc), %s, Linux %s, %s, node %s; started %s, load average %s\n",
		runtime.NumCPU(), model, unix.ByteSliceToString(u.Release[:]), runtime.Version(), node,
		time.Now().UTC().Format(time.RFC3339), loadavg())
}

// revision says which mcpvisor was measured: the commit, and the files
// that differ from it outside test/ and docs/ (others may be editing).
func (h *harness) revision() string {
	if h.opt.bin != "" {
		return fmt.Sprintf("binary: %s (given with -bin)\n", h.bin)
	}
	head, err := exec.Command("git", "-C", h.root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "revision: unknown (no git)\n"
	}
	out, _ := exec.Command("git", "-C", h.root, "status", "--porcelain", "--", "actors", "cmd", "messages", "reconciler", "watcher", "go.mod").Output()
	var dirty []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if len(l) > 3 {
			dirty = append(dirty, l[3:])
		}
	}
	if len(dirty) == 0 {
		return fmt.Sprintf("revision: %s\n", strings.TrimSpace(string(head)))
	}
	return fmt.Sprintf("revision: %s plus uncommitted changes to %s\n", strings.TrimSpace(string(head)), strings.Join(dirty, ", "))
}

// loadavg is the 1, 5 and 15 minute load averages, as uptime prints them.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], ", ")
}
