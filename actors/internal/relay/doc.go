// Package relay carries what one upstream server sends back while it
// serves: progress notifications to the call they belong to (in order,
// none lost before the call's result), log messages to the embedder's
// handler and, rate-limited and redacted, to the journal, and the
// server's requests for sampling, elicitation and roots (2025-11-25
// requests on the connection, or 2026-07-28 input requests inside a
// call's result) to the embedder's handlers, or back to a caller that
// answers them itself: each names its server, and is admitted only within
// a call (unless the server's config allows otherwise) and within the
// server's rate (admission.go, attribution.go). It also says which client capabilities a session
// advertises, and puts a call's progress token, log level and caller's
// capabilities in its params.
//
// # Goroutines and who stops them
//
// A Relay is one session's; it starts no goroutine of its own but these:
//
//   - a goroutine per call with progress queued, which delivers it in
//     order and ends when the queue is empty (the connection's reader
//     queues progress, never waiting for a caller: order.go); counted in
//     Deps.Work, which Supervisor.Close waits for;
//   - a goroutine per input request of a call, answered at once; the call
//     waits for all of them before it retries or returns (input.go).
//
// Everything else runs on the go-sdk's goroutines (the connection's
// reader, its notification and request handlers) and on the goroutines
// of the calls, which Begin, Drain and end their calls here. The relay
// shares only its own lock with them, never the session actor's state.
package relay
