// Package actors is mcpvisor's imperative shell on protoactor-go: one file
// per actor, the MCP transports, the event journal and Supervisor, the
// embedding API.
//
// # Actors
//
//	root        parent of the others; stopping it stops everything
//	reconciler  the shell around reconciler.Fleet, the single writer of
//	            "what should run": turns messages into fleet inputs and
//	            carries out the effects (spawns and stops session actors,
//	            its children, which it never restarts; arms retry timers;
//	            swaps the read-only fleet view, then publishes and replies)
//	config      reads every config file into one desired state (one read in
//	            flight at most; the generation grows only on real changes)
//	watcher     owns the file watcher (config files and trust store); its
//	            callbacks become FileChanged
//	session     one per live session: dials, lists tools, serves calls,
//	            notices death, stops gracefully
//
// Rules every actor keeps: Receive is one type switch; blocking work
// (connect, list, call, close, file reads) never runs inside Receive but on
// a goroutine that captures the actor's PID and root context and ends by
// sending a result message; results carry a generation or session id so
// stale ones are dropped; all timing goes through the quartz clock.
//
// # Goroutines and who stops them
//
//   - Each session actor's lifeline goroutine owns its connection from dial
//     to close; each tool call, each tools/list and each health probe runs
//     on its own goroutine; the config actor reads files on a goroutine
//     (the config files and the trust store, when Options.ApprovalRequired
//     names project files);
//     timers (connect, call, list, probe, backoff, stop grace) are quartz
//     timers whose callbacks only send a message. All goroutines are
//     counted in one WaitGroup: Supervisor.Close stops the actors (which
//     cancels the lifelines: servers get the stop grace, then their process
//     groups are signalled) and then waits for it.
//   - Each session's relay (relay_session.go) runs on the go-sdk's handler
//     goroutines, not the actor's: progress and log notifications (in
//     order, on the connection's notification goroutine) and sampling and
//     elicitation requests (concurrently). It shares only its own lock
//     with the session's call goroutines, which register their calls with
//     it and, once a call returned, wait (at most a second, quartz) for
//     the notifications read before its result to be relayed. A
//     logging/setLevel and each roots update run on a goroutine of the
//     session's, counted in the WaitGroup.
//   - The watcher actor starts the file watcher and closes it when it stops.
//   - Subscribe adds an event stream subscriber that never blocks
//     (Subscription.Close removes it).
//
// # Events
//
// The journal numbers every event and publishes a *messages.Envelope on the
// actor system's event stream. Publishing runs subscribers on the
// publishing actor's goroutine: subscribers must only hand off. Server
// events come from the reconciler, except server.log (ServerLogged), which
// a session's relay publishes from its notification goroutine.
package actors
