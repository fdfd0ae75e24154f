package transport

import (
	"fmt"
	"os/exec"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// command builds the process of a stdio server, its command resolved as
// config/command_path.go says (and `mcpvisor check` foresees): a bare
// command whose server's env sets PATH is looked up on that PATH, as
// Claude Code and every Node-based client look it up. exec.Command alone
// looks on mcpvisor's own PATH, so a server that worked there with
// "env": {"PATH": …} was not found here. Other commands go to exec as they
// are: a bare one is looked up on mcpvisor's PATH, a relative path
// resolves against the process's Dir (the server's cwd), else mcpvisor's
// working directory. The found program keeps its bare name as argv[0].
func command(spec messages.ServerSpec) *exec.Cmd {
	path, ok := config.EnvPATH(spec)
	if !ok || !config.IsBareCommand(spec.Command) {
		return exec.Command(spec.Command, spec.Args...)
	}
	found, ok := config.LookPath(spec.Command, path, ondisk.Executable)
	if !ok {
		return &exec.Cmd{
			Path: spec.Command, Args: append([]string{spec.Command}, spec.Args...),
			Err: fmt.Errorf("exec: %q: executable file not found in the PATH the server's env sets", spec.Command),
		}
	}
	cmd := exec.Command(found, spec.Args...)
	cmd.Args[0] = spec.Command
	return cmd
}
