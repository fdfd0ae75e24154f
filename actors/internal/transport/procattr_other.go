//go:build !linux

package transport

import "syscall"

// serverProcAttr puts a stdio server in a process group of its own, so
// stop signals reach every descendant. Only Linux has a parent-death
// signal: elsewhere a server outlives a killed mcpvisor unless a keeper
// (Options.ProcessGroups) kills its group.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
