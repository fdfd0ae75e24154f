package actors

import (
	"errors"

	"github.com/mcpvisor/mcpvisor/actors/internal/fleet"
	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/actors/internal/view"
)

// Errors a tool call, prompt get, resource read, completion or
// subscription can fail with; callers branch on them with errors.Is
// (the HTTP API maps each to a status code).
var (
	// ErrUnknownServer: no configured server has that exposed prefix.
	ErrUnknownServer = view.ErrUnknownServer
	// ErrUnknownTool: the server does not expose a tool of that name (it
	// does not have it, or the allow and deny lists hide it).
	ErrUnknownTool = view.ErrUnknownTool
	// ErrNotReady: the server exists but has no ready session.
	ErrNotReady = session.ErrNotReady
	// ErrUnknownPrompt: the server does not expose a prompt of that name.
	ErrUnknownPrompt = view.ErrUnknownPrompt
	// ErrUnknownResource: no ready server owns that URI (no resource of
	// that URI and no resource template matching it).
	ErrUnknownResource = view.ErrUnknownResource
	// ErrBadReference: a completion reference that is neither a prompt
	// (ref/prompt with a prefix__prompt name) nor a resource (ref/resource
	// with a URI or URI template).
	ErrBadReference = errors.New("bad completion reference")
	// ErrUpstream: the server or the transport failed the call.
	ErrUpstream = session.ErrUpstream
	// ErrCallTimeout: the call ran past the server's call timeout.
	ErrCallTimeout = session.ErrCallTimeout
	// ErrCanceled: the caller's context ended first.
	ErrCanceled = session.ErrCanceled
	// ErrClosed: the supervisor is closed.
	ErrClosed = errors.New("supervisor closed")
	// ErrFailed: a core actor failed and the supervisor ended
	// (Supervisor.Err wraps it, naming the actor and the reason).
	ErrFailed = fleet.ErrFailed
	// ErrBadToolName: a tool name that is not prefix__tool (and no server
	// exposes tools by their own names).
	ErrBadToolName = view.ErrBadToolName
	// ErrInputRequests: a server's input requests could not be answered
	// within a call (too many rounds, or one mcpvisor cannot relay).
	ErrInputRequests = relay.ErrInputRequests
)
