// Package cli implements the mcpvisor command: flag parsing, logger and
// clock wiring, human-readable output, exit codes. main only hands it the
// process's arguments, streams and signals.
//
// Goroutines: Main runs on the caller's goroutine. `run` starts a
// Supervisor (see package actors), one goroutine printing its events and
// the HTTP API (httpapi.Server.Serve on its own goroutine); it stops the
// API first, then the Supervisor and the printer, before returning. Both
// also end, exit status 1, when the Supervisor fails (Supervisor.Done).
// `serve` starts a Supervisor, one goroutine feeding its events to the
// gateway, and the gateway's transport, and stops all of them before
// returning. Client commands (status, tools, call, resync, events) run on
// the caller's goroutine.
package cli
