// Package transport dials a session's connection to its server: a stdio
// server's process (in a process group of its own, with a bounded,
// redacted stderr ring, and an exit status that no read races), or a
// streamable HTTP or HTTP+SSE connection (bound to the configured URL's
// origin, falling back from streamable HTTP to HTTP+SSE for an older
// server, resuming quiet streams, with an entry's headersHelper and an
// OAuth handler in front of its requests). It says how a process ended in
// words a user can act on.
//
// # Goroutines and who stops them
//
// Dial starts nothing: the go-sdk starts the process, or opens the
// connection, inside Connect, on the session's lifeline goroutine, and
// everything here runs on the goroutines that connect, send and read.
// A stdio connection's Close (the session closing it) starts one goroutine
// that waits for the process and ends with it; Close waits for it at most
// its escalation (close stdin, SIGTERM, SIGKILL), a backstop behind the
// session's own stop. exec's copying goroutine writes the stderr ring and
// ends when the process's stderr does (WaitDelay bounds it). A
// headersHelper runs as a process of its own on the goroutine of the
// request that needs its headers, under that request's context: ending
// the context kills its process group, and the request waits for it.
package transport
