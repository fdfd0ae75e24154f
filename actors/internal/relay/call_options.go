package relay

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
)

// CallOptions are what the caller of one request asked for (the
// Supervisor's CallOptions set them).
type CallOptions struct {
	// Progress gets the call's progress notifications, in order (nil:
	// none asked for).
	Progress func(messages.Progress)
	// LogLevel is the call's log level on protocol 2026-07-28 ("" : the
	// Supervisor's).
	LogLevel string
	// CallerCaps is what the caller can answer (nil: unknown).
	CallerCaps *mcp.ClientCapabilities
	// PassInput says the caller answers input requests itself;
	// InputResponses and RequestState are the answers its retry brings.
	PassInput      bool
	InputResponses mcp.InputResponseMap
	RequestState   string
}

type callerKey struct{}

// WithCaller marks ctx as a call made on behalf of caller (any comparable
// value naming who asked: the gateway passes its client's session).
func WithCaller(ctx context.Context, caller any) context.Context {
	return context.WithValue(ctx, callerKey{}, caller)
}

// CallerOf returns the caller WithCaller put in ctx, or nil.
func CallerOf(ctx context.Context) any { return ctx.Value(callerKey{}) }
