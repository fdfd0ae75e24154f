package session

import "errors"

// Errors a request, or a subscription, to a session ends with; the
// Supervisor re-exports each (actors.ErrNotReady, ...), so errors.Is
// holds for its callers.
var (
	// ErrNotReady: the server has no connected session to take it.
	ErrNotReady = errors.New("server not ready")
	// ErrUpstream: the server or the transport failed the request.
	ErrUpstream = errors.New("upstream error")
	// ErrCallTimeout: the request ran past the server's call timeout.
	ErrCallTimeout = errors.New("tool call timed out")
	// ErrCanceled: the caller's context ended first.
	ErrCanceled = errors.New("tool call canceled")
)
