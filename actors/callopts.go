package actors

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/messages"
)

// CallOption changes one call made through the Supervisor (CallTool).
type CallOption func(*callOptions)

// callOptions are what the options of one call set.
type callOptions = relay.CallOptions

// WithProgress asks the upstream server for progress on this call (its
// request carries a progressToken of mcpvisor's own, unique to the call)
// and hands every notifications/progress for it to f, in the order the
// server sent them. f runs on the session's progress goroutine (over
// streamable HTTP, the go-sdk's notification goroutine): it must be quick
// and must not call back into the Supervisor. When the
// server's config sets resetTimeoutOnProgress, each notification also
// restarts the call's timeout.
func WithProgress(f func(messages.Progress)) CallOption {
	return func(o *callOptions) { o.Progress = f }
}

// WithLogLevel sends level (debug ... emergency) as the call's log level
// to servers on protocol 2026-07-28, where the level travels with each
// request (its _meta io.modelcontextprotocol/logLevel) instead of a
// logging/setLevel. Older servers use the level of SetLogLevel.
func WithLogLevel(level string) CallOption {
	return func(o *callOptions) { o.LogLevel = level }
}

// WithClientCapabilities says what the caller itself can answer (its
// client's capabilities). On protocol 2026-07-28, where each request
// carries its client's capabilities, the call then tells the server only
// of the sampling, elicitation and roots the caller can answer, so a
// server that gates on them treats the call as the caller's own. Roots
// that the server's config lists stay, whoever calls.
func WithClientCapabilities(caps *mcp.ClientCapabilities) CallOption {
	return func(o *callOptions) { o.CallerCaps = caps }
}

// WithInputPassThrough says the caller answers a server's input requests
// itself (protocol 2026-07-28, SEP-2322: sampling, elicitation and roots
// asked for in a call's result): a result that asks for input is returned
// to it as the server sent it (its InputRequests and RequestState set),
// instead of being answered through the Options handlers and retried.
// responses and state are what the caller's own retry carries (nil and ""
// on its first try); they go to the server with the call. Without this
// option, mcpvisor answers input requests itself, for every protocol.
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

// WithCaller marks ctx as a call made on behalf of caller (any comparable
// value naming who asked: the gateway passes its client's session). A
// request an upstream server sends while that call is in flight
// (sampling, elicitation) reaches the Options handlers with a context
// derived from the call's, so CallerOf names who to ask.
func WithCaller(ctx context.Context, caller any) context.Context {
	return relay.WithCaller(ctx, caller)
}

// CallerOf returns the caller WithCaller put in ctx, or nil.
func CallerOf(ctx context.Context) any { return relay.CallerOf(ctx) }
