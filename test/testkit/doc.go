// Package testkit holds helpers shared by mcpvisor's end-to-end tests: a
// builder of the mcpvisor binary (which doubles as the example MCP
// server), config file writers and process checks. Events are recorded
// with actorstest.Record.
//
// Goroutines: BuildBinary runs `go build` on the caller's goroutine.
package testkit
