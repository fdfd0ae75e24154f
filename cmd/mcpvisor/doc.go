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
//
// Exit status: 0 on success; 1 when something failed (for `run` and
// `serve`, also a failed supervisor: they end with one line saying what
// happened); 2 for usage errors; 3 when a client command cannot reach the
// daemon.
//
// main only wires the process to package cli: its arguments, standard
// streams, environment and signals. Goroutines: main runs cli.Main on the
// main goroutine; signal.NotifyContext adds the runtime's signal watcher,
// stopped before the process exits. Everything else belongs to cli.
package main
