package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// reaper remembers every process the harness started or learned about
// (mcpvisor, mcp-hub, the servers they run) and kills what is left of them
// when the harness ends, however it ends. Each tracked pid is kept with
// its command line, so a recycled pid is never killed.
type reaper struct {
	mu    sync.Mutex
	procs map[int]string // pid -> its command line when tracked
	cmds  []started      // started by the harness
}

type started struct {
	cmd    *exec.Cmd
	exited <-chan struct{}
}

func newReaper() *reaper { return &reaper{procs: map[int]string{}} }

// start starts cmd in a process group of its own that dies with the
// harness (Pdeathsig), and remembers it. The reaper waits for it: the
// returned channel is closed once it has exited and been reaped.
func (r *reaper) start(cmd *exec.Cmd) (<-chan struct{}, error) {
	isolate(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	r.mu.Lock()
	r.cmds = append(r.cmds, started{cmd, exited})
	r.mu.Unlock()
	return exited, nil
}

// isolate puts cmd in its own process group, killed if the harness dies.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// track remembers a process the harness did not start (a server run by
// mcpvisor or mcp-hub), to be killed at the end if it is still there.
func (r *reaper) track(pid int) {
	if pid <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.procs[pid]; ok {
		return
	}
	if cl := cmdline(pid); cl != "" {
		r.procs[pid] = cl
	}
}

// killAll kills every remembered process that is still alive (with its
// process group), then reaps the harness's own children. Bounded: a child
// that does not die within 5 s after SIGKILL is reported, not waited for.
func (r *reaper) killAll() {
	r.mu.Lock()
	procs, cmds := r.procs, r.cmds
	r.procs, r.cmds = map[int]string{}, nil
	r.mu.Unlock()
	running := func(s started) bool {
		select {
		case <-s.exited:
			return false
		default:
			return true
		}
	}
	for _, s := range cmds {
		if running(s) {
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	var left []int
	for pid, cl := range procs {
		if alive(pid) && cmdline(pid) == cl {
			_ = syscall.Kill(-pid, syscall.SIGKILL) // its group, if it leads one
			_ = syscall.Kill(pid, syscall.SIGKILL)
			left = append(left, pid)
		}
	}
	for _, s := range cmds {
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			warnf("process %d did not exit after SIGKILL", s.cmd.Process.Pid)
		}
	}
	if len(left) > 0 {
		warnf("killed %d leftover server processes: %v", len(left), left)
	}
}

// alive reports whether pid exists and has not exited (a zombie has).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) {
		return st[i+2] != 'Z' && st[i+2] != 'X'
	}
	return true
}

// cmdline is pid's command line with NULs as spaces ("" if gone).
func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
}

// environValue is the value of key in pid's initial environment.
func environValue(pid int, key string) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok && k == key {
			return v
		}
	}
	return ""
}

// statFields are the fields of /proc/PID/stat after "pid (comm)": index 0
// is the state (field 3 in proc(5)).
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no comm", pid)
	}
	return strings.Fields(string(b[i+1:])), nil
}

// userHZ is the unit of utime and stime in /proc/PID/stat (USER_HZ, 100 on
// every Linux architecture Go supports).
const userHZ = 100

// cpuTime is utime+stime of pid: CPU used by all its threads so far.
func cpuTime(pid int) (time.Duration, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	// proc(5): utime is field 14, stime 15; f[0] is field 3.
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * time.Second / userHZ, nil
}

// rss is pid's resident set size (VmRSS) in bytes.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}

// children lists the live processes whose parent is pid.
func children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, err := statFields(p)
		if err != nil || len(f) < 2 || f[0] == "Z" {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == pid {
			out = append(out, p)
		}
	}
	return out
}

// listeningAddrs returns the local addresses (hex, as /proc/net/tcp* show
// them) of the sockets listening on port: used to prove a peer bound
// 127.0.0.1 only.
func listeningAddrs(port int) []string {
	var out []string
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 4 || fs[3] != "0A" { // 0A: LISTEN
				continue
			}
			addr, p, ok := strings.Cut(fs[1], ":")
			if n, err := strconv.ParseInt(p, 16, 32); ok && err == nil && int(n) == port {
				out = append(out, addr)
			}
		}
	}
	return out
}

// loopbackOnly reports whether every listener on port is on 127.0.0.1 or
// ::1 (and there is at least one).
func loopbackOnly(port int) (bool, []string) {
	addrs := listeningAddrs(port)
	for _, a := range addrs {
		if a != "0100007F" && a != "00000000000000000000000001000000" {
			return false, addrs
		}
	}
	return len(addrs) > 0, addrs
}

// symlink makes link point at target, replacing what was there.
func symlink(target, link string) error {
	_ = os.Remove(link)
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	return os.Symlink(target, link)
}
