package actors

import (
	"errors"

	"github.com/mcpvisor/mcpvisor/actors/internal/fleet"
	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/actors/internal/view"
)

// Errors requests fail with (docs/embedding.md, "Requests"); branch on
// them with errors.Is.
var (
	ErrBadToolName     = view.ErrBadToolName     // not prefix__tool
	ErrUnknownServer   = view.ErrUnknownServer   // no server has that prefix
	ErrUnknownTool     = view.ErrUnknownTool     // the server does not expose it
	ErrUnknownPrompt   = view.ErrUnknownPrompt   // the server does not expose it
	ErrUnknownResource = view.ErrUnknownResource // no ready server owns the URI
	ErrBadReference    = errors.New("bad completion reference")
	ErrNotReady        = session.ErrNotReady    // no ready session
	ErrUpstream        = session.ErrUpstream    // the server or transport failed it
	ErrCallTimeout     = session.ErrCallTimeout // past the server's call timeout
	ErrCanceled        = session.ErrCanceled    // the caller's context ended first
	ErrInputRequests   = relay.ErrInputRequests // a server's input requests went unanswered
	ErrClosed          = errors.New("supervisor closed")
	ErrFailed          = fleet.ErrFailed // a core actor failed: Err names it
)

// StartError is the answer to a request that waited for a server to
// start, which did not: it failed, needs authorization, or was not up
// within the wait (the longer of its connect and call timeouts). It wraps
// ErrNotReady.
type StartError = fleet.StartError
