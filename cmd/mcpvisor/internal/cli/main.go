package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/keeper"
)

// IO is the process's environment as the CLI sees it; tests supply their own.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	LookupEnv      func(string) (string, bool)
	// Executable is the mcpvisor binary, which run and serve start again
	// as their keeper (package keeper); empty: no keeper (a test that runs
	// a command in-process, whose binary is the test's).
	Executable string
}

// Exit codes.
const (
	ExitOK       = 0
	ExitFailed   = 1
	ExitUsage    = 2
	ExitNoDaemon = 3
)

const usage = `mcpvisor keeps MCP client sessions in line with MCP config files.

Usage:
  mcpvisor run [flags]              supervise the servers in the config files and serve the HTTP API
  mcpvisor serve [flags]            an MCP gateway: one MCP server with every configured server's tools
  mcpvisor status|tools|call|resync|events   talk to a running daemon's HTTP API
  mcpvisor prompts|prompt|resources|read     the servers' prompts and resources, through the same API
  mcpvisor check [--json] FILE...   validate config files; exit 1 on errors
  mcpvisor trust [--yes] [PATH...]  review and approve a project's config files (--list, --revoke PATH)
  mcpvisor input set|unset|list [--project DIR] [ID]   store the value of a VS Code input (${input:ID}) for your files or one project; set reads it from stdin
  mcpvisor auth login|status|logout   OAuth for remote servers: log in once, see and forget tokens
  mcpvisor example-server [flags]   a scriptable stdio MCP server (demo, tests)
  mcpvisor version

Run "mcpvisor COMMAND -h" for a command's flags.
`

// Main runs one mcpvisor command and returns the process exit code.
func Main(ctx context.Context, args []string, io IO) int {
	if len(args) == 0 {
		fmt.Fprint(io.Stderr, usage)
		return ExitUsage
	}
	switch args[0] {
	case "run":
		return runCommand(ctx, args[1:], io)
	case "check":
		return checkCommand(args[1:], io)
	case "trust":
		return trustCommand(args[1:], io)
	case "input":
		return inputCommand(args[1:], io)
	case "auth":
		return authCommand(ctx, args[1:], io)
	case "serve":
		return serveCommand(ctx, args[1:], io)
	case "status", "tools", "call", "prompts", "prompt", "resources", "read", "resync", "events":
		return clientCommand(ctx, args[0], args[1:], io)
	case keeper.Command: // hidden: started by run and serve
		return keeper.Main()
	case "example-server":
		return exampleServerCommand(ctx, args[1:], io)
	case "version", "--version":
		fmt.Fprintln(io.Stdout, "mcpvisor", actors.Version)
		return ExitOK
	case "help", "-h", "--help":
		fmt.Fprint(io.Stdout, usage)
		return ExitOK
	default:
		fmt.Fprintf(io.Stderr, "mcpvisor: unknown command %q\n\n%s", args[0], usage)
		return ExitUsage
	}
}
