//lint:file-ignore SA1019 sampling, roots and logging are deprecated from protocol 2026-07-28 on (SEP-2577) but are what this file relays.

package relay

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
)

// ClientOptions are the go-sdk client options of one session: the
// capabilities it advertises and the handlers of what the server sends
// back. A capability is advertised exactly when mcpvisor can honour it:
// sampling and elicitation when the embedder set a Sampling or
// Elicitation handler (the gateway sets both in `serve`) and Honourable,
// if set, says it can be honoured now; roots (roots true) when the
// server's config lists roots, or the embedder answers roots and
// Honourable agrees (the session decides).
// Notifications (progress, log messages) need no capability. o holds the
// session's other handlers (the catalog's); it is completed and returned.
func (r *Relay) ClientOptions(roots bool, o *mcp.ClientOptions) *mcp.ClientOptions {
	caps := &mcp.ClientCapabilities{}
	if roots {
		caps.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	o.Logger = r.deps.Logger
	o.Capabilities = caps
	// Input requests are answered by the relay's own middleware
	// (input.go), which can hand them to the caller instead.
	o.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	o.ProgressNotificationHandler = r.onProgress
	o.LoggingMessageHandler = r.onLog
	honourable := r.deps.Handlers.HonourableNow()
	if r.deps.Handlers.Sampling != nil && honourable.Sampling != nil {
		o.CreateMessageHandler = r.onSampling
	}
	if r.deps.Handlers.Elicitation != nil && honourable.Elicitation != nil {
		o.ElicitationHandler = r.onElicitation
		// Its modes as Honourable says (URL mode only when a client
		// has it): the go-sdk, left to itself, advertises form only.
		caps.Elicitation = elicitationModes(honourable.Elicitation)
	}
	// What the go-sdk will advertise, for calls that narrow it to their
	// caller's (WithClientCapabilities).
	adv := *caps
	if o.CreateMessageHandler != nil {
		adv.Sampling = &mcp.SamplingCapabilities{}
	}
	r.advertised = &adv
	return o
}

// elicitationModes is e with its modes spelled out: neither form nor url
// means form (the spec's reading of an empty elicitation capability).
func elicitationModes(e *mcp.ElicitationCapabilities) *mcp.ElicitationCapabilities {
	out := &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
	if e.Form == nil && e.URL != nil {
		out.Form = nil
	}
	if e.URL != nil {
		out.URL = &mcp.URLElicitationCapabilities{}
	}
	return out
}

// ElicitationRelay takes every elicitation/create a server sends. With no
// Options.Elicitation (so none advertised), it is declined at once: the
// go-sdk's own answer would be an error the server may not expect, and a
// request nobody answers would hang the server's call. With one, the
// request goes to it as the server sent it (unless the session did not
// advertise elicitation: then it is declined too): the go-sdk client would first
// check the requested schema against its own rules, stricter than some
// clients' (it refuses enumNames and titled enums, which SEP-1330 allows),
// and a relay leaves that to whoever answers.
func (r *Relay) ElicitationRelay(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "elicitation/create" {
			return next(ctx, method, req)
		}
		if r.deps.Handlers.Elicitation == nil || r.advertised.Elicitation == nil {
			return &mcp.ElicitResult{Action: "decline"}, nil // never advertised
		}
		if er, ok := req.(*mcp.ElicitRequest); ok && er.Params != nil {
			res, raw, err := r.elicit(ctx, er)
			if raw != nil {
				return &rawElicitResult{ElicitResult: res, raw: raw}, nil
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// onSampling relays a sampling request, if admitted, naming its server.
func (r *Relay) onSampling(reqCtx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	ctx, inCall, done := r.callContext(reqCtx)
	defer done()
	if err := r.admit(inCall, "sampling/createMessage"); err != nil {
		return nil, err
	}
	res, err := r.deps.Handlers.Sampling(ctx, r.server, attributedSampling(req.Params, r.server))
	if err != nil {
		return nil, withCode(fmt.Errorf("sampling for %q: %w", r.server, err))
	}
	return res, nil
}

// onElicitation relays an elicitation request, if admitted, naming its
// server.
//
// Its typed answer is decoded from the client's bytes when they were
// captured: the typed value the gateway got has the schema's defaults
// filled in (elicit_verbatim.go).
func (r *Relay) onElicitation(reqCtx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	res, raw, err := r.elicit(reqCtx, req)
	if raw != nil {
		var given mcp.ElicitResult
		if json.Unmarshal(raw, &given) == nil {
			return &given, nil
		}
		if res == nil {
			return nil, withCode(fmt.Errorf("elicitation for %q: the client's answer is not an elicitation result: %s", r.server, raw))
		}
	}
	return res, err
}

// elicit is onElicitation, plus the client's answer as it sent it when
// its bytes were captured (elicit_verbatim.go): the server gets those.
func (r *Relay) elicit(reqCtx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, json.RawMessage, error) {
	ctx, inCall, done := r.callContext(reqCtx)
	defer done()
	if err := r.admit(inCall, "elicitation/create"); err != nil {
		return nil, nil, err
	}
	ctx, answer := verbatim.Capture(ctx)
	res, err := r.deps.Handlers.Elicitation(ctx, r.server, r.verbatimSchema(attributedElicit(req.Params, r.server), req.Params))
	if raw := answer.Result("elicitation/create"); raw != nil {
		return res, raw, nil
	}
	if err != nil {
		return nil, nil, withCode(fmt.Errorf("elicitation for %q: %w", r.server, err))
	}
	return res, nil, nil
}

// admit decides whether a request of the server's (method) goes on: any
// only within its limits (admission.go), and one outside any call only if
// its config allows it. The limit comes first, so that a flood of
// requests outside calls logs no more than the rate lets through.
func (r *Relay) admit(inCall bool, method string) error { return r.admitN(inCall, method, 1) }

// admitN is admit for n requests that come together, all or none.
func (r *Relay) admitN(inCall bool, method string, n int) error {
	if err := r.deps.Admission.takeN(r.server, method, n); err != nil {
		if r.deps.Logger != nil {
			r.deps.Logger.Debug("server request refused: rate limit", "server", r.server, "method", method)
		}
		return err
	}
	if !inCall && !r.unsolicitedOK() {
		if r.deps.Logger != nil {
			r.deps.Logger.Warn("server request refused: outside any call", "server", r.server, "method", method)
		}
		return unsolicited(r.server, method)
	}
	return nil
}

// onLog publishes an upstream log message (rate-limited) and hands it to
// Options.Logging. On protocol 2026-07-28 a server logs only while it
// serves a request, so a message that arrives during the session's only
// call goes with that call's context; older servers log for the whole
// session, and their messages go with none.
func (r *Relay) onLog(reqCtx context.Context, req *mcp.LoggingMessageRequest) {
	defer r.relayed()
	p := req.Params
	if p == nil {
		return
	}
	r.publishLog(p)
	if r.deps.Handlers.Logging == nil {
		return
	}
	ctx, done := reqCtx, func() {}
	if cs := req.Session; cs != nil && cs.InitializeResult() != nil && cs.InitializeResult().ProtocolVersion >= StatelessProtocol {
		ctx, _, done = r.callContext(reqCtx)
	}
	defer done()
	r.deps.Handlers.Logging(ctx, r.server, p)
}

// StatelessProtocol is the first protocol version on which server-to-client
// messages only travel inside a request (SEP-2575, SEP-2322).
const StatelessProtocol = "2026-07-28"

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

// HasRoots reports whether caps include roots (either form the go-sdk
// decodes).
func HasRoots(caps *mcp.ClientCapabilities) bool {
	return caps != nil && (caps.RootsV2 != nil || caps.Roots.ListChanged)
}
