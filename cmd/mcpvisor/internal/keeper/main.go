package keeper

import (
	"os"
	"os/signal"
	"syscall"
)

// Main is the keeper process's body (mcpvisor's hidden Command): it
// ignores the signals that would end it before mcpvisor, runs Run on
// stdin, SIGKILLs every group left, and returns the exit code.
func Main() int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	Run(os.Stdin, func(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	return 0
}
