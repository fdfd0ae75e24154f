package actors

import "errors"

// Errors a tool call can fail with; callers branch on them with errors.Is
// (the HTTP API maps each to a status code).
var (
	// ErrUnknownServer: no configured server has that exposed prefix.
	ErrUnknownServer = errors.New("unknown server")
	// ErrUnknownTool: the server does not expose a tool of that name (it
	// does not have it, or the allow and deny lists hide it).
	ErrUnknownTool = errors.New("tool not exposed")
	// ErrNotReady: the server exists but has no ready session.
	ErrNotReady = errors.New("server not ready")
	// ErrUpstream: the server or the transport failed the call.
	ErrUpstream = errors.New("upstream error")
	// ErrCallTimeout: the call ran past the server's call timeout.
	ErrCallTimeout = errors.New("tool call timed out")
	// ErrCanceled: the caller's context ended first.
	ErrCanceled = errors.New("tool call canceled")
	// ErrClosed: the supervisor is closed.
	ErrClosed = errors.New("supervisor closed")
	// ErrBadToolName: a tool name that is not prefix__tool (and no server
	// exposes tools by their own names).
	ErrBadToolName = errors.New("tool name must be prefix__tool")
)
