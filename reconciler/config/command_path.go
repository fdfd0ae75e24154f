package config

import (
	"path/filepath"
	"strings"

	"github.com/mcpvisor/mcpvisor/messages"
)

// How a stdio server's command resolves when mcpvisor starts it, shared by
// the process transport (which starts it) and `mcpvisor check` (which says
// beforehand whether it will be found), so that both say the same:
//
//   - a command with a slash is a path: an absolute one is used as it is; a
//     relative one resolves against the server's cwd, or, without one,
//     against the working directory of the mcpvisor process, like any
//     relative path given to exec;
//   - a bare command is looked up on the PATH the server gets: the PATH its
//     env sets (as Claude Code and every Node-based client do), else
//     mcpvisor's own.

// EnvPATH is the PATH a server's env (or envFile) sets, if it sets one.
func EnvPATH(spec messages.ServerSpec) (string, bool) {
	p, ok := spec.Env["PATH"]
	return p, ok
}

// IsBareCommand reports whether command is looked up on PATH (it has no
// slash) rather than used as a path.
func IsBareCommand(command string) bool { return !strings.Contains(command, "/") }

// LookPath finds a bare command on pathList as exec.LookPath does: the
// first directory of the list that holds an executable file of that name,
// an empty entry meaning ".". What a relative entry finds first is
// refused, as exec refuses it (exec.ErrDot: a program in whatever the
// working directory is must not shadow the real one). executable says
// whether a path names an executable file; it is injected so that this
// package does no I/O of its own.
func LookPath(command, pathList string, executable func(path string) bool) (string, bool) {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, command); executable(p) {
			return p, filepath.IsAbs(p)
		}
	}
	return "", false
}
