// Package daemon tests `mcpvisor run` as operators use it: the built binary
// as a real process with its HTTP API on a free loopback port, driven and
// observed through the CLI client commands (`status`, `events`, `resync`,
// `call`) and plain HTTP.
//
// The daemon is started with `--listen 127.0.0.1:0` and prints the address
// it got ("mcpvisor: HTTP API on http://ADDR"); the tests read it from its
// standard output, which is race-free, unlike picking a free port first.
//
// Goroutines: each started process has one goroutine copying its standard
// output into lines; it ends when the process exits, which every test
// waits for (an interrupt, or a kill at cleanup).
package daemon
