//lint:file-ignore SA1019 sampling, roots and logging are deprecated from protocol 2026-07-28 on (SEP-2577) but are what this file relays.

package actors

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientOptions are the go-sdk client options of one session: the
// capabilities it advertises and the handlers of what the server sends
// back. A capability is advertised exactly when mcpvisor can honour it:
// sampling and elicitation when the embedder set Options.Sampling or
// Options.Elicitation (the gateway sets both in `serve`) and
// Options.Honourable, if set, says it can be honoured now; roots when the
// server's config lists roots, or the embedder set Options.Roots and
// Honourable agrees (sessionActor.rootsAdvertised).
// Notifications (progress, log messages) need no capability. o holds the
// session's other handlers (the catalog's); it is completed and returned.
func (r *sessionRelay) clientOptions(roots bool, o *mcp.ClientOptions) *mcp.ClientOptions {
	caps := &mcp.ClientCapabilities{}
	if roots {
		caps.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	o.Logger = r.env.slog("mcp")
	o.Capabilities = caps
	// Input requests are answered by the relay's own middleware
	// (relay_input.go), which can hand them to the caller instead.
	o.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	o.ProgressNotificationHandler = r.onProgress
	o.LoggingMessageHandler = r.onLog
	honourable := r.env.honourable()
	if r.env.opts.Sampling != nil && honourable.Sampling != nil {
		o.CreateMessageHandler = r.onSampling
	}
	if r.env.opts.Elicitation != nil && honourable.Elicitation != nil {
		o.ElicitationHandler = r.onElicitation
	}
	// What the go-sdk will advertise, for calls that narrow it to their
	// caller's (WithClientCapabilities).
	adv := *caps
	if o.CreateMessageHandler != nil {
		adv.Sampling = &mcp.SamplingCapabilities{}
	}
	if o.ElicitationHandler != nil {
		adv.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
	}
	r.advertised = &adv
	return o
}

// elicitationRelay takes every elicitation/create a server sends. With no
// Options.Elicitation (so none advertised), it is declined at once: the
// go-sdk's own answer would be an error the server may not expect, and a
// request nobody answers would hang the server's call. With one, the
// request goes to it as the server sent it (unless the session did not
// advertise elicitation: then it is declined too): the go-sdk client would first
// check the requested schema against its own rules, stricter than some
// clients' (it refuses enumNames and titled enums, which SEP-1330 allows),
// and a relay leaves that to whoever answers.
func (r *sessionRelay) elicitationRelay(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "elicitation/create" {
			return next(ctx, method, req)
		}
		if r.env.opts.Elicitation == nil || r.advertised.Elicitation == nil {
			return &mcp.ElicitResult{Action: "decline"}, nil // never advertised
		}
		if er, ok := req.(*mcp.ElicitRequest); ok && er.Params != nil {
			return r.onElicitation(ctx, er)
		}
		return next(ctx, method, req)
	}
}

func (r *sessionRelay) onSampling(reqCtx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	ctx, _, done := r.callContext(reqCtx)
	defer done()
	res, err := r.env.opts.Sampling(ctx, r.server, req.Params)
	if err != nil {
		return nil, fmt.Errorf("sampling for %q: %w", r.server, err)
	}
	return res, nil
}

func (r *sessionRelay) onElicitation(reqCtx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	ctx, _, done := r.callContext(reqCtx)
	defer done()
	res, err := r.env.opts.Elicitation(ctx, r.server, req.Params)
	if err != nil {
		return nil, fmt.Errorf("elicitation for %q: %w", r.server, err)
	}
	return res, nil
}

// onLog publishes an upstream log message (rate-limited) and hands it to
// Options.Logging. On protocol 2026-07-28 a server logs only while it
// serves a request, so a message that arrives during the session's only
// call goes with that call's context; older servers log for the whole
// session, and their messages go with none.
func (r *sessionRelay) onLog(reqCtx context.Context, req *mcp.LoggingMessageRequest) {
	defer r.relayed()
	p := req.Params
	if p == nil {
		return
	}
	r.publishLog(p)
	if r.env.opts.Logging == nil {
		return
	}
	ctx, done := reqCtx, func() {}
	if cs := req.Session; cs != nil && cs.InitializeResult() != nil && cs.InitializeResult().ProtocolVersion >= statelessProtocol {
		ctx, _, done = r.callContext(reqCtx)
	}
	defer done()
	r.env.opts.Logging(ctx, r.server, p)
}

// statelessProtocol is the first protocol version on which server-to-client
// messages only travel inside a request (SEP-2575, SEP-2322).
const statelessProtocol = "2026-07-28"

// logData renders a log message's data as text: a string as it is, any
// other value as JSON.
func logData(data any) string {
	if s, ok := data.(string); ok {
		return s
	}
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Sprint(data)
	}
	return string(b)
}

// honourable is what Options.Honourable says can be honoured now; without
// it, everything.
func (e *environment) honourable() *mcp.ClientCapabilities {
	if e.opts.Honourable != nil {
		if c := e.opts.Honourable(); c != nil {
			return c
		}
		return &mcp.ClientCapabilities{}
	}
	return &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}, Elicitation: &mcp.ElicitationCapabilities{}, RootsV2: &mcp.RootCapabilities{}}
}

// hasRoots reports whether caps include roots (either form the go-sdk
// decodes).
func hasRoots(caps *mcp.ClientCapabilities) bool {
	return caps != nil && (caps.RootsV2 != nil || caps.Roots.ListChanged)
}
