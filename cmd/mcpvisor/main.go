// Command mcpvisor keeps MCP client sessions in line with MCP config files.
//
// Usage:
//
//	mcpvisor run [--config FILE]...   supervise the servers in the config files, serve the HTTP API
//	mcpvisor serve [--config FILE]... an MCP gateway: one server with every configured server's tools
//	mcpvisor status|tools|call|resync|events   clients of a running daemon's HTTP API
//	mcpvisor check [--json] FILE...   validate config files without starting anything
//	mcpvisor example-server [flags]   a scriptable stdio MCP server for demos and tests
//	mcpvisor version
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, LookupEnv: os.LookupEnv})
	stop()
	os.Exit(code)
}
