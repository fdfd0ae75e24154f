package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// checkCommandFound says, when LoadOptions.Commands is set, whether a
// stdio server's command will be found when mcpvisor starts it, resolved
// as the process transport resolves it (command_path.go). What it finds
// is foreseen, not a rule of the file: the entry stays valid (installing
// the program fixes it without an edit), but a command that will not be
// found is an error, so check fails. A relative command without cwd is a
// warning even when it is found: it is found only from this directory.
func (e *entryParser) checkCommandFound(v *hujson.Value, spec *messages.ServerSpec) {
	c := e.p.opts.Commands
	if c == nil || v == nil || spec.Command == "" || spec.Transport != messages.TransportStdio || e.commandHoldsArgs(spec.Command) {
		return
	}
	command := spec.Command
	switch {
	case IsBareCommand(command):
		e.checkBareCommand(v, spec)
	case filepath.IsAbs(command):
		if !c.Executable(command) {
			e.foreseeAt(v.StartOffset, messages.SeverityError, fmt.Sprintf("command %q is not an executable file: correct the path, or make the file executable (chmod +x)", command))
		}
	case spec.Cwd != "":
		if p := filepath.Join(spec.Cwd, command); !c.Executable(p) {
			e.foreseeAt(v.StartOffset, messages.SeverityError, fmt.Sprintf("command %q does not resolve against cwd %s: %s is not an executable file; write command relative to cwd, or as an absolute path",
				command, spec.Cwd, p))
		}
	default:
		e.checkRelativeCommand(v, command)
	}
}

// checkBareCommand looks a command without a slash up on the PATH the
// server gets. Without any PATH (an embedder's empty environment) there
// is nothing to look on, and nothing is said.
func (e *entryParser) checkBareCommand(v *hujson.Value, spec *messages.ServerSpec) {
	path, fromEnv := EnvPATH(*spec)
	where, fix := "PATH", "add its directory to PATH (in the environment of whoever runs mcpvisor, or in env.PATH)"
	if fromEnv {
		where, fix = "the PATH its env sets", "add its directory to env.PATH"
	} else if p, ok := e.ownPATH(); ok {
		path = p
	} else {
		return
	}
	if _, ok := LookPath(spec.Command, path, e.p.opts.Commands.Executable); !ok {
		e.foreseeAt(v.StartOffset, messages.SeverityError, fmt.Sprintf("command %q is not found on %s: install it, %s, or write its absolute path", spec.Command, where, fix))
	}
}

// ownPATH is mcpvisor's own PATH, the one a server whose env sets none is
// looked up on.
func (e *entryParser) ownPATH() (string, bool) {
	if look := e.p.opts.LookupEnv; look != nil {
		return look("PATH")
	}
	return "", false
}

// checkRelativeCommand judges a relative command of an entry without cwd:
// it resolves against the working directory of whoever runs mcpvisor, so
// it works from one directory only.
func (e *entryParser) checkRelativeCommand(v *hujson.Value, command string) {
	c := e.p.opts.Commands
	here := filepath.Join(c.WorkingDir, command)
	if c.Executable(here) {
		cwd := "set cwd to the directory it is relative to (a relative cwd is relative to this file's directory)"
		if rel, err := filepath.Rel(filepath.Dir(e.p.path), c.WorkingDir); err == nil {
			cwd = fmt.Sprintf(`set "cwd": %q (relative to this file's directory)`, filepath.ToSlash(rel))
		}
		e.foreseeAt(v.StartOffset, messages.SeverityWarning, fmt.Sprintf("command %q is a relative path and the entry has no cwd, so it resolves against the working directory of whoever runs mcpvisor: from here it is %s, from elsewhere it is not found; %s, or write an absolute path",
			command, here, cwd))
		return
	}
	e.foreseeAt(v.StartOffset, messages.SeverityError, fmt.Sprintf("command %q is a relative path and the entry has no cwd, so it resolves against the working directory of whoever runs mcpvisor, and from here %s is not an executable file; set cwd to the directory it is relative to (a relative cwd is relative to this file's directory), or write an absolute path",
		command, here))
}

// commandHoldsArgs reports whether command is one that
// hintCommandWithSpaces warns about ("node index.js"): that warning
// already says what to fix.
func (e *entryParser) commandHoldsArgs(command string) bool {
	fields := strings.Fields(command)
	return len(fields) >= 2 && e.p.opts.FileExists != nil && !e.p.opts.FileExists(command)
}

// foreseeAt records a diagnostic that leaves the entry valid: what will
// happen when the server starts, not a rule of the file.
func (e *entryParser) foreseeAt(off int, severity messages.Severity, msg string) {
	e.p.diag(off, severity, fmt.Sprintf("server %q: %s", e.name, msg))
}
