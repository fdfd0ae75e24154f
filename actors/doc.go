// Package actors is how an agent runtime embeds mcpvisor: Start a
// Supervisor on its config files, read its fleet, make requests through
// it, follow its events, and Close it; gateway.Mount and httpapi.New
// serve it over MCP and HTTP. The reference is docs/embedding.md.
//
// Underneath, one package per concern (docs/architecture.md, "Where does
// X live"), an actor tree on protoactor-go steps the pure reconciler.Fleet;
// this package only wires it (wiring.go).
//
// # Goroutines and who stops them
//
// Every goroutine the Supervisor's parts start is counted in one
// WaitGroup, which Close waits for, or ends before one that is counted
// (each package's doc.go says which); then every Feed ends once it
// delivered the last events.
// Requests run on their caller's goroutine. A panic inside mcpvisor, or in
// a function passed in Options, never crashes the process: the part that
// failed is rebuilt, or the Supervisor ends (Done, Err).
package actors
