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
