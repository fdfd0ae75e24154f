// Package gateway is mcpvisor's aggregating MCP server: one *mcp.Server
// whose tools, prompts, resources and resource templates are the fleet's
// ready ones, kept in line with the fleet as it changes, and whose calls,
// gets, reads, completions and subscriptions are routed to the owning
// server. `mcpvisor serve` runs it over stdio or streamable HTTP.
//
// The gateway depends on a small Source (the catalog reads, CallTool,
// GetPrompt, ReadResource, Complete, the subscriptions and Status;
// satisfied by *actors.Supervisor) and on a channel of events (a
// Supervisor.Follow feed), so tests drive it with a fake fleet and
// in-memory MCP clients, without a process.
//
// # Mounting
//
// Mount is how an embedder puts a gateway on a running Supervisor, in
// one call (mount.go): it follows the Supervisor's live events before the
// first catalog load, so no change falls between the two; builds the
// gateway with the options given; binds the Relay the Supervisor was
// started with; holds the first lists for the startup wait; runs Run on a
// goroutine of its own; and ends ServeStdio and ServeListener once the
// Supervisor ends. Close stops following and waits; then close the
// Supervisor. New, Run, Bind and HoldFirstLists remain for tests that
// drive a gateway with a fake Source.
//
// # Following the fleet
//
// Run loads the Source's catalog once, then applies every
// *messages.ToolsChanged, PromptsChanged, ResourcesChanged and
// ResourceTemplatesChanged from the events channel, and relays every
// ResourceUpdated (a *messages.FeedTruncated, a gap in the feed, loads the
// catalog again). Each catalog event carries the whole list of one server
// and kind, so applying them in order leaves the gateway equal to the last
// event of every server whatever it started from; the event is applied,
// not the Source re-read, because the fleet view is swapped after the
// event is published.
//
// One index per kind (index.go) records what each server claims under
// which exposed key (a tool or prompt name, named by WithNames through
// actors.QualifiedName or bare; a URI; a URI template) and which claim
// each key serves: the only one, or, when two servers claim one key, the
// first in config order (Source.Status: its ConfigFiles, then each
// server's position), the conflict logged once and listed by Conflicts.
// When the winner withdraws, the other's claim takes over. An item whose
// fingerprint is unchanged is left alone. Applying one server's event
// costs that server's items, not the fleet's.
//
// Nothing the gateway exposes is registered with the go-sdk's server: a
// receiving middleware (list.go) answers tools/list, prompts/list,
// resources/list and resources/templates/list from the indexes, PageSize
// items a page (server by server, each server's keys sorted; the cursor
// marks the last item served, so a change between two pages neither
// repeats nor hides the rest), and routes tools/call, prompts/get and
// resources/read by them (a URI no resource has goes to the first
// template in config order that matches it). To send
// notifications/*/list_changed, which the go-sdk sends only from inside
// its Add* and Remove* methods, the gateway re-registers one sentinel item
// of the kind (notify.go), never listed nor served; the go-sdk coalesces
// those into one list_changed per kind (10ms quiet window) to every
// connected client. Over streamable HTTP the go-sdk therefore checks no
// Mcp-Param headers of a tools/call against the tool's x-mcp-header
// annotations (it finds no registered tool); the upstream session sets its
// own.
// The server advertises every capability (listChanged for tools, prompts
// and resources, resources.subscribe, completions) from the start, even
// with nothing exposed, because clients on protocol 2026-07-28 only listen
// for what was advertised when they connected.
//
// # Subscriptions
//
// The go-sdk keeps the per-session subscription table and fans each
// notifications/resources/updated out to it; the gateway counts clients
// per URI (subscribe.go) so that the Source is subscribed once per URI,
// on the first client, and unsubscribed after the last, or once a URI's
// subscribers have all ended without unsubscribing (checked on each
// subscribe, unsubscribe and update of that URI). The Source renews
// upstream subscriptions when a server restarts.
//
// A tool whose input schema a go-sdk peer refuses (none, one whose type
// is not "object", bad x-mcp-header annotations) is skipped with a "tool
// skipped" warning; its siblings are exposed. An output schema that is not
// a JSON object is dropped and the tool kept. A resource whose URI is not
// absolute, or a template that does not parse, is skipped likewise.
//
// # Calls and errors
//
// A call goes to Source.CallTool with the client's raw arguments. The
// result passes through unchanged, as the upstream's bytes where the
// session captured them (verbatim.go), except for the upstream server's
// `_meta` serverInfo, which the gateway's own session replaces with its
// own on protocol 2026-07-28, and for the fields 2026-07-28 added, which
// a session on an older protocol is not sent. Errors map as follows (see mapCallError):
// not ready, timed out and upstream transport failures become results
// with isError set, so the model sees them; a tool the fleet no longer
// has becomes the protocol error -32602, as for any unknown tool; an
// upstream JSON-RPC error passes through with its code, message and
// data; a closed
// supervisor is -32603. Prompt gets, resource reads and completions have
// no isError result: their errors are all JSON-RPC errors (see
// mapRequestError).
//
// # Relays
//
// A call, get or read marks its context with the calling client's session
// (actors.WithCaller) and, when the client sent a progressToken, passes
// actors.WithProgress with a callback that sends each upstream progress
// notification to that client under its own token (relay.go). A Relay,
// installed in the Supervisor's options before it starts and bound to the
// gateway after, answers the fleet's sampling and elicitation requests by
// asking the calling client (else, for a server allowed requests outside
// a call, the only client; else it refuses with a JSON-RPC code, -32601
// for a client without the capability), tells each server at its connect
// the capabilities of the connected clients (Relay.Default before the
// first: nothing unless set),
// answers roots with the roots of the only client that gave any (read on
// its initialized and roots/list_changed, relay_roots.go), and relays log
// messages to the calling client or to all, each at its own
// level. logging/setLevel is followed per client (setLevelMiddleware) and
// the most verbose level is passed to the fleet (Supervisor.SetLogLevel)
// before the answer. These run on the go-sdk's handler goroutines and
// start none of their own.
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
// CheckLoopback refuses listen addresses other than loopback. Stateful
// sessions' streams carry event ids and a retry: hint (StreamRetry), so
// clients can resume them; sessions with no request in flight for
// HTTPOptions.SessionTimeout are ended (their ids then get 404), and past
// HTTPOptions.MaxSessions new ones get 503.
//
// # Startup
//
// HoldFirstLists holds tools/list, prompts/list, resources/list and
// resources/templates/list until the Source's status is Settled, or
// CatalogsKnown (every server still connecting lists its cached catalog,
// which the Supervisor's catalog cache provides), checked after every
// event (the tools are then reloaded from the Source), or the startup
// wait has passed. A tools/call, prompts/get, resources/read or
// completion of a name or URI the gateway does not expose goes to the
// Source when a server that may provide it is still starting (or the
// fleet has not read its config yet), or is ready (the gateway is behind
// the fleet) or failed (the Source says it is not ready); the Source
// waits for a starting server (early.go). Anything else stays -32602
// unknown tool or prompt, or resource not found. Under NamesBare such a
// call or get waits for the hold instead, then looks again.
//
// # Tracing
//
// WithTracerProvider installs one more receiving middleware, the
// outermost (tracing.go): a server span per client request, whose parent
// is the traceparent in the request's _meta, and whose context the
// request carries on to the Source. It runs on the go-sdk's request
// goroutine and starts none.
//
// # Goroutines and who stops them
//
//   - Mount starts one goroutine, running Run, which Close stops and
//     waits for. ServeStdio and ServeListener of a mounted gateway start
//     one more each, which ends their context when the Supervisor ends
//     and itself ends when they return.
//   - Run runs on the caller's goroutine and returns when its context ends
//     or the events channel is closed. It starts no goroutine. It relays
//     each resource update itself: the go-sdk writes it to every
//     subscribed session in turn (a 2026-07-28 listener's write bounded by
//     10s), so a client that stops reading can hold up the following
//     events. With HoldFirstLists it arms one quartz timer (the startup
//     wait), stopped when Run returns; Run's end also releases any list
//     still held.
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
//     and waits for the Serve goroutine. It also runs the session reaper (a
//     quartz ticker on HTTPOptions.Clock), which it stops and waits for
//     when it returns.
//   - The go-sdk schedules each list_changed notification on a timer that
//     fires once; it starts nothing that outlives the sessions.
package gateway
