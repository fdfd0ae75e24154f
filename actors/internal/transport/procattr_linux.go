//go:build linux

package transport

import "syscall"

// serverProcAttr puts a stdio server in a process group of its own (stop
// signals reach every descendant: npx, sh -c, node) and gives it a
// parent-death signal: if mcpvisor dies, even of SIGKILL, the kernel
// kills the server. The signal reaches only that process, not its
// descendants; mcpvisor serve and run have a keeper for them
// (Options.ProcessGroups).
//
// The kernel sends it when the thread that forked the server ends, not
// the process (golang/go#27505). Go ends a thread only when a goroutine
// locked to it returns without unlocking, so the server is started from
// a goroutine locked to its thread until the server has been reaped
// (stdio.go): no other goroutine runs on that thread meanwhile, and this
// one does not end while the server runs.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
