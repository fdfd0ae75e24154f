// Package actors is how an agent runtime embeds mcpvisor: Start a
// Supervisor on its config files, read its fleet (Tools, Prompts,
// Resources, Status), make requests through it (CallTool, GetPrompt,
// ReadResource, Complete), Resync, follow its events (Follow), and Close
// it. Requests fail with the errors below; branch on them with errors.Is.
//
// Underneath is an actor tree on protoactor-go, in packages of their own
// (see docs/architecture.md, "Where does X live"): the fleet actor steps
// reconciler.Fleet, the pure core (actors/internal/fleet); a session actor
// per live MCP session (actors/internal/session); the config and watcher
// actors (actors/internal/intake); the read side (actors/internal/view);
// the event log (actors/journal). This package only puts them together
// (wiring.go): each gets the Deps of exactly what it uses.
//
// # Goroutines and who stops them
//
// Start starts the actor tree and, unless Options.CacheDir is "-", the
// catalog cache's writer; every goroutine any part starts is counted in
// one WaitGroup. Close ends the tree (the servers get StopGrace, then
// their process groups are signalled), closes the cache's writer, waits
// for every goroutine, then ends every Feed once it delivered the last
// events. Requests run on their caller's goroutine. A panic inside
// mcpvisor, or in a function passed in Options, never crashes the
// process: the part that failed is rebuilt, or the Supervisor ends loudly
// (a supervisor.failed event, Done, Err).
//
// Tests drive the actors by message injection with package
// actors/actorstest.
package actors
