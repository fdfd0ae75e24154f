// Package testkit holds helpers shared by mcpvisor's end-to-end tests: an
// event recorder over a Supervisor's subscription, a builder of the
// mcpvisor binary (which doubles as the example MCP server), config file
// writers and process checks.
//
// Goroutines: a Recorder starts none (the test goroutine reads its
// subscription); BuildBinary runs `go build` on the caller's goroutine.
package testkit
