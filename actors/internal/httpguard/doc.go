// Package httpguard holds the request checks that mcpvisor's two HTTP
// servers (the API in actors/httpapi and the MCP gateway in
// actors/gateway) share: Origin validation against web pages, bearer
// tokens of at least MinTokenBytes compared in constant time, wrong
// guesses throttled (Throttle: a budget of guesses refilled on a quartz
// clock, never a ban; the server's own user, told apart by
// OwnerConnContext, is not throttled), and request bodies read within a
// deadline.
//
// # Goroutines and who stops them
//
// None are started. ReadBody arms one quartz timer per body, on the
// request's goroutine, and stops it before returning; when it fires it
// only moves the connection's read deadline into the past, which makes
// the pending read return.
package httpguard
