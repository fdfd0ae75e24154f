// Package session is the session actor: one per live MCP client session
// of one server (a stdio process, or a streamable HTTP or HTTP+SSE
// connection). It connects and lists the server's catalog (tools,
// prompts, resources, templates: bounded, paged, each item checked),
// follows list_changed, holds resource subscriptions upstream, probes a
// quiet session, notices death, and stops gracefully. Requests (calls,
// gets, reads, completions) do not go through its mailbox: they run on
// their caller's goroutine over the lane the actor publishes while the
// session is connected (Handle.Run).
//
// The fleet actor spawns sessions (Spawn) as its children and is their
// supervisor; a session reports to it (Ready, Relisted, Stopped,
// ResourceUpdated, Spawned, *messages.ServerFailed) and takes its
// commands through its Handle (Stop, Subscribe, Unsubscribe, UpdateRoots,
// RefreshRoots, SetLogLevel). It is never restarted: a panic stops it,
// and its parent makes that the server's failure.
//
// # Goroutines and who stops them
//
// The goroutines a session starts are counted in Deps.Work, which
// Supervisor.Close waits for once the actors have stopped:
//
//   - The lifeline owns the connection from dial to close: it connects
//     and lists under the connect timeout (quartz), reports, waits for the
//     session to die or for the actor to cancel it (the actor's stop, or
//     Deps.Context's end), then closes it: the stop grace, then SIGTERM and
//     a second later SIGKILL to the process group (lifeline.go). Two
//     short-lived helpers of its own (one waiting on the session's end,
//     one closing it) end before it does. A stdio server's process is
//     waited for by a goroutine its transport starts when the connection
//     closes, which ends when the process does (package transport).
//   - Each re-list of a kind (at most one per kind at a time, paced by
//     Limits.RelistInterval: relist.go), each subscribe, each health probe and each
//     logging/setLevel runs on a goroutine of its own, bounded by its
//     timeout on the quartz clock; the re-lists, subscribes and probes end
//     by sending their result to the actor, a setLevel by answering its
//     caller. An unsubscribe (bounded likewise) and a roots update (bounded
//     by the go-sdk's own timeout on the notification it sends) report
//     nothing: their outcome only matters to the server.
//
// Requests run on their callers' goroutines, not counted here, bounded by
// the call timeout, and end when the session's stop context does.
//   - An entry's headersHelper runs on the goroutine of the request that
//     needs its headers (the lifeline's during the handshake).
//
// Timers (connect, call, list, relist interval, subscribe, probe, stop
// grace) are quartz timers whose callbacks only cancel a context or send a message.
package session
