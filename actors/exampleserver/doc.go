// Package exampleserver is a small, scriptable stdio MCP server built with
// the go-sdk. It backs `mcpvisor example-server`, the bundled demo and the
// end-to-end tests, and doubles as a test double for anyone testing MCP
// supervision: flags make it slow, hang or fail its handshake, exit after a
// while or print garbage; tools echo, add, sleep, fail, report its pid and
// environment, or crash the process.
//
// Goroutines: Run serves on the caller's goroutine; the go-sdk starts its own
// connection goroutines, which end when stdin closes. --exit-after starts one
// timer that exits the process.
package exampleserver
