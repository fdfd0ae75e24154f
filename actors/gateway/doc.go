// Package gateway is mcpvisor's aggregating MCP server: one *mcp.Server
// whose tools are the fleet's ready tools, named server__tool, kept in line
// with the fleet as it changes, and whose calls are routed to the owning
// session. `mcpvisor serve` runs it over stdio or streamable HTTP.
//
// The gateway depends on a small Source (Tools and CallTool, satisfied by
// *actors.Supervisor) and on a channel of events (a Supervisor.Follow
// feed), so tests drive it with a fake fleet and in-memory MCP
// clients, without a process.
//
// # Following the fleet
//
// Run loads Source.Tools once, then applies every *messages.ToolsChanged
// from the events channel (a *messages.FeedTruncated, a gap in the feed,
// loads Source.Tools again). Each ToolsChanged carries the whole exposed tool
// set of one server, so applying them in order leaves the gateway equal to
// the last event of every server whatever it started from; the event is
// applied, not Source.Tools re-read, because the fleet view is swapped after
// the event is published. A tool whose fingerprint (description and
// schemas) is unchanged is left alone; added and changed tools go through
// Server.AddTool, withdrawn ones through one Server.RemoveTools. The go-sdk
// coalesces those into one notifications/tools/list_changed (10ms quiet
// window) to every connected client. The server advertises
// tools.listChanged from the start, even with no tools, because clients on
// protocol 2026-07-28 only open their notification stream if it was
// advertised when they connected.
//
// Server.AddTool panics on a schema it cannot use (no input schema, one
// whose type is not "object", bad x-mcp-header annotations): such a tool is
// validated first, recovered if the SDK still refuses it, and skipped with
// a "tool skipped" warning; its siblings are exposed. An output schema that
// is not a JSON object is dropped and the tool kept.
//
// # Calls and errors
//
// A call goes to Source.CallTool with the client's raw arguments. The
// result passes through unchanged except for the upstream server's
// `_meta` serverInfo, which the gateway's own session replaces with its
// own on protocol 2026-07-28. Errors map as follows (see mapCallError):
// not ready, timed out and upstream transport failures become results
// with isError set, so the model sees them; a tool the fleet no longer
// has becomes the protocol error -32602, as for any unknown tool; an
// upstream JSON-RPC error passes through with its code; a closed
// supervisor is -32603.
//
// # Transports
//
// ServeStdio serves one session on a reader and a writer (stdin and
// stdout) until the reader ends or the context does. ServeListener serves
// streamable HTTP at /mcp: requests of protocol 2026-07-28 or later go to
// a stateless handler (their notifications travel on the client's
// subscriptions/listen stream), older ones to a stateful handler with
// session ids and a standalone SSE stream. Every HTTP request must bear
// the token (HTTPOptions.Token; NoAuth turns that off), must not come from
// a web page of another origin (403; HTTPOptions.AllowOrigins trusts
// more), and must send its body within HTTPOptions.BodyTimeout.
// CheckLoopback refuses listen addresses other than loopback.
//
// # Goroutines and who stops them
//
//   - Run runs on the caller's goroutine and returns when its context ends
//     or the events channel is closed. It starts nothing.
//   - ServeStdio runs on the caller's goroutine and starts two: one waiting
//     for the session to end (ends with it), and one copying the reader
//     into a pipe so that ending the session never depends on the reader
//     (ends when the reader's Read returns; ServeStdio closes a reader that
//     is an io.Closer, which ends it for pipes and sockets, and a blocking
//     stdin ends with the process, like the go-sdk's own stdin reader). On
//     ctx's end it ends the input rather than calling ServerSession.Close
//     first: in go-sdk v1.8.0, Close waits for in-flight requests and can
//     miss a subscriptions/listen that had not started yet, and wait
//     forever. The go-sdk's connection goroutines end with the session.
//   - ServeListener starts one goroutine running http.Server.Serve, plus the
//     server's connection goroutines. When its context ends it cancels the
//     server's BaseContext, closes every MCP session (open SSE and listen
//     streams would otherwise keep Shutdown waiting), closes connections
//     that never carried a request (Shutdown counts those idle only after
//     5s), shuts the server down (bounded by ShutdownTimeout, then Close)
//     and waits for the Serve goroutine.
//   - The go-sdk schedules each list_changed notification on a timer that
//     fires once; it starts nothing that outlives the sessions.
package gateway
