// Package httpapi is mcpvisor's local HTTP API, version 1: JSON status,
// tools, tool calls and resync, a server-sent event stream that replays the
// journal and follows live events without gaps, a health check and
// Prometheus metrics. docs/api.md is the reference for the wire format; the
// wire types live in wire.go so the CLI decodes exactly what is served.
//
// The handlers depend on Fleet, a small interface an *actors.Supervisor
// satisfies: New(Options{Fleet: sup, ...}) mounts the API on one, and
// Serve or Handler (next to an embedder's own routes) serves it. Most
// tests drive it with the fake in httpapitest.
//
// # Security
//
// Every route but /healthz needs "Authorization: Bearer TOKEN"
// (Options.Token), compared in constant time; an API built without a
// token serves nobody, unless Options.NoAuth says an embedder's own
// authentication stands in front (then requests must name a loopback
// Host, which defeats DNS rebinding). CheckExposure refuses, at startup,
// to listen beyond loopback without a token; New refuses a token shorter
// than MinTokenBytes (32) anywhere, and wrong tokens are throttled
// (GuessBurst, then one per GuessEvery: 429 with Retry-After), except,
// under Serve, those of the server's own user (its Unix socket, or
// loopback TCP from its uid), so that another user's guesses cannot lock
// the owner out.
//
// Every route refuses with 403 a request that a web page of another
// origin made (an Origin other than the server's own, or Sec-Fetch-Site
// of another site), whatever its method; Options.AllowOrigins trusts
// more. Requests without those headers (curl, the CLI) pass. POST bodies
// must be application/json, at most MaxBodyBytes, and arrive within
// BodyTimeout (a quartz timer cuts a trickled body: 408).
//
// # Goroutines and who stops them
//
//   - Server.Serve runs an http.Server (its connection goroutines belong to
//     net/http) and one goroutine that feeds events to the metrics. When
//     Serve's context ends it cancels every request context first (so event
//     streams and in-flight tool calls end at once), shuts the http.Server
//     down, closes the metrics feed and waits for its goroutine before
//     returning.
//   - Each event stream runs on its request's goroutine and holds one
//     Fleet.Follow feed and one heartbeat ticker, both released when the
//     client goes away or the server shuts down.
package httpapi
