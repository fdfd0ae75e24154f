package testkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ProcessAlive reports whether a process with this pid exists and has not
// terminated. A zombie counts as dead: it has exited, and if it is not our
// child (a grandchild reparented to init) reaping it is not our job. Our
// own children are always reaped by the session that started them.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name: "pid (comm) S ...".
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z' && stat[i+2] != 'X'
	}
	return true
}

// WaitProcessGone waits, without polling, until pid has terminated: a
// pidfd becomes readable when its process exits, child or not. A process
// killed with SIGKILL dies asynchronously; this is how a test waits for it.
func WaitProcessGone(ctx context.Context, pid int) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	defer unix.Close(fd)
	for {
		timeout := -1
		if dl, ok := ctx.Deadline(); ok {
			timeout = int(time.Until(dl).Milliseconds()) + 1
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, timeout)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return fmt.Errorf("poll pidfd %d: %w", pid, err)
		case n == 1:
			return nil
		case ctx.Err() != nil:
			return fmt.Errorf("process %d still alive: %w", pid, ctx.Err())
		}
	}
}

// ProcessCPU is the CPU time (user and system, every thread's, the
// garbage collector's included) a live process has used so far, from
// /proc/PID/stat. Its unit is the kernel's clock tick (10 ms on Linux),
// so a benchmark that divides it by its ops needs enough of them.
func ProcessCPU(pid int) (time.Duration, error) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// "pid (comm) state ppid ...": utime and stime are the 12th and 13th
	// fields after the parenthesised command name.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the command name", pid, len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	const tick = 10 * time.Millisecond // USER_HZ, 100 on every Linux
	return time.Duration(ticks) * tick, nil
}
