package actors

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/messages"
)

// CallOption changes one request made through the Supervisor.
type CallOption func(*callOptions)

// callOptions are what the options of one call set.
type callOptions = relay.CallOptions

// WithProgress hands the server's progress notifications for the call to f,
// in order, on a session goroutine: f must be quick.
func WithProgress(f func(messages.Progress)) CallOption {
	return func(o *callOptions) { o.Progress = f }
}

// WithLogLevel is the call's log level for servers on protocol 2026-07-28.
func WithLogLevel(level string) CallOption {
	return func(o *callOptions) { o.LogLevel = level }
}

// WithClientCapabilities narrows what the call tells a 2026-07-28 server
// it can answer to what its caller can.
func WithClientCapabilities(caps *mcp.ClientCapabilities) CallOption {
	return func(o *callOptions) { o.CallerCaps = caps }
}

// WithInputPassThrough returns a server's input requests to the caller
// instead of answering them (2026-07-28, SEP-2322).
func WithInputPassThrough(responses mcp.InputResponseMap, state string) CallOption {
	return func(o *callOptions) {
		o.PassInput, o.InputResponses, o.RequestState = true, responses, state
	}
}

func buildCallOptions(opts []CallOption) callOptions {
	var o callOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// WithCaller marks ctx as a request made on behalf of caller, whom
// CallerOf names to the Options handlers.
func WithCaller(ctx context.Context, caller any) context.Context {
	return relay.WithCaller(ctx, caller)
}

// CallerOf returns the caller WithCaller put in ctx, or nil.
func CallerOf(ctx context.Context) any { return relay.CallerOf(ctx) }
