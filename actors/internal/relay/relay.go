//lint:file-ignore SA1019 sampling, roots and logging are deprecated from protocol 2026-07-28 on (SEP-2577) but are what this file relays.

package relay

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Relay carries what an upstream server sends back while it serves
// (progress, log messages, requests for sampling, elicitation and roots)
// to whoever can take it: the call it belongs to, the embedder's Handlers,
// or the journal. One exists per session; the go-sdk calls its
// handlers on the connection's goroutines, and the session's call
// goroutines register and end their calls, so it has a lock of its own
// and never touches the actor.
//
// Which call a request belongs to: on protocol 2026-07-28 a request is an
// input request inside the call's result, fulfilled under the call's own
// context, so the call is known. On 2025-11-25 it is a real request on the
// connection, and the go-sdk does not say which call it came during: it is
// given to the only call in flight, or to the newest one if every call in
// flight has the same caller (WithCaller); otherwise it has no call, and
// the handler decides (the gateway asks its only client, or refuses).
type Relay struct {
	deps     Deps
	server   string
	session  uint64
	redactor Redactor
	logs     *logLimiter
	// unsolicitedOK says whether the server's config allows requests
	// outside any call (admission.go); read at each request, as the
	// field applies live.
	unsolicitedOK func() bool

	// advertised is the session's own capabilities (set before connect);
	// configRoots: its roots are its config's, not a caller's.
	advertised  *mcp.ClientCapabilities
	configRoots bool

	// requests are the raw params of the server's elicitations, as the
	// session's transport read them (elicit_verbatim.go).
	requests verbatim.Recent

	// counted: the connection's reads are counted (order.go), so
	// calls can wait for what came before their response to be relayed.
	// read counts the relayed notifications the connection read and the
	// go-sdk handles (log messages; over streamable HTTP, progress too);
	// handled those relayed; changed is closed and replaced whenever
	// handled or a call's delivered progress grows (both under mu).
	counted atomic.Bool
	read    atomic.Uint64

	mu      sync.Mutex
	handled uint64
	changed chan struct{}
	next    uint64
	calls   map[uint64]*Call // by call number
	tokens  map[string]*Call // by upstream progress token
}

// Call is one call the session is serving (Begin).
type Call struct {
	relay    *Relay
	n        uint64
	ctx      context.Context
	caller   any
	progress func(messages.Progress)
	// reset restarts the call's timeout (resetTimeoutOnProgress), or nil.
	reset func()
	// token is the call's upstream progress token ("" for none); level
	// the log level its request carries on protocol 2026-07-28, and
	// callerCaps what its caller can answer (nil: unknown).
	token, level string
	callerCaps   *mcp.ClientCapabilities
	// passInput: input requests go back to the caller (input.go);
	// inputResponses and requestState are its answers to send.
	passInput      bool
	inputResponses mcp.InputResponseMap
	requestState   string

	// The call's progress read off the connection (relayProgress), under
	// relay.mu: queue is what waits for delivery, delivering says that
	// deliverQueued runs, and queued and delivered count them.
	queue             []progressNote
	delivering        bool
	queued, delivered uint64
}

// Context is the call's context: the caller's, marked as this call's, for
// the request to be sent under.
func (c *Call) Context() context.Context { return c.ctx }

// inCallKey marks a context derived from a call's: a request handled
// under it (an input request on 2026-07-28) belongs to that call.
type inCallKey struct{}

// New is the relay of session for a server of spec; redactor is the
// session's (it redacts progress messages and log data), unsolicitedOK
// says whether the server's config allows requests outside any call now
// (nil: it does not).
func New(deps Deps, spec messages.ServerSpec, session uint64, redactor Redactor, unsolicitedOK func() bool) *Relay {
	if unsolicitedOK == nil {
		unsolicitedOK = func() bool { return false }
	}
	return &Relay{
		deps: deps, server: spec.Name, session: session, redactor: redactor, configRoots: len(spec.Roots) > 0,
		unsolicitedOK: unsolicitedOK,
		logs:          newLogLimiter(deps.Clock),
		changed:       make(chan struct{}),
		calls:         map[uint64]*Call{},
		tokens:        map[string]*Call{},
	}
}

// Begin registers a call about to be sent, as o asks: its Context marks
// it (inCallKey) and gets it its progress token, and end must be called
// once the call returned and was drained. reset, if set, restarts the
// call's timeout on each progress notification.
func (r *Relay) Begin(ctx context.Context, o CallOptions, reset func()) (c *Call, end func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	level := o.LogLevel
	if level == "" {
		level = r.deps.LogLevel()
	}
	c = &Call{relay: r, n: r.next, caller: CallerOf(ctx), progress: o.Progress, reset: reset, level: level, callerCaps: o.CallerCaps,
		passInput: o.PassInput, inputResponses: o.InputResponses, requestState: o.RequestState}
	c.ctx = context.WithValue(ctx, inCallKey{}, c)
	r.calls[c.n] = c
	if o.Progress != nil {
		// Unique within the session, which is all the server sees: two
		// gateway clients' own tokens never meet upstream.
		c.token = "mcpvisor-" + strconv.FormatUint(c.n, 10)
		r.tokens[c.token] = c
	}
	return c, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.calls, c.n)
		if c.token != "" {
			delete(r.tokens, c.token)
		}
	}
}

// callContext returns the context a server-to-client request is handled
// under: the context of the call it belongs to (see Relay), ended
// when either the call or the request ends, and whether it belongs to
// one. The caller must call done.
func (r *Relay) callContext(reqCtx context.Context) (ctx context.Context, inCall bool, done func()) {
	if reqCtx.Value(inCallKey{}) != nil {
		return reqCtx, true, func() {}
	}
	c := r.soleCall()
	if c == nil {
		return reqCtx, false, func() {}
	}
	ctx, cancel := context.WithCancel(c.ctx)
	stop := context.AfterFunc(reqCtx, cancel)
	return ctx, true, func() { stop(); cancel() }
}

// soleCall is the call a request of unknown origin belongs to: the only
// call in flight, or the newest if all have one caller; else nil.
func (r *Relay) soleCall() *Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	var newest *Call
	for _, c := range r.calls {
		switch {
		case newest == nil:
			newest = c
		case c.caller == nil || c.caller != newest.caller:
			return nil
		case c.n > newest.n:
			newest = c
		}
	}
	return newest
}

// setInputResponses puts a caller's answers to input requests, and the
// state to echo, in the params of its call, get or read.
func setInputResponses(p mcp.RequestParams, responses mcp.InputResponseMap, state string) {
	switch p := p.(type) {
	case *mcp.CallToolParams:
		p.InputResponses, p.RequestState = responses, state
	case *mcp.GetPromptParams:
		p.InputResponses, p.RequestState = responses, state
	case *mcp.ReadResourceParams:
		p.InputResponses, p.RequestState = responses, state
	}
}

// Params completes the params of a request sent under ctx (the
// context Begin returned): its progress token, if it asked for progress,
// its caller's answers to input requests, if it passes them through, and
// on protocol 2026-07-28 its log level and its caller's capabilities.
func Params(ctx context.Context, cs *mcp.ClientSession, p mcp.RequestParams) {
	c, _ := ctx.Value(inCallKey{}).(*Call)
	if c == nil {
		return
	}
	r := c.relay
	if c.token != "" {
		p.SetProgressToken(c.token)
	}
	if c.passInput {
		setInputResponses(p, c.inputResponses, c.requestState)
	}
	init := cs.InitializeResult()
	if init == nil || init.ProtocolVersion < StatelessProtocol || (c.level == "" && c.callerCaps == nil) {
		return
	}
	meta := p.GetMeta()
	if meta == nil {
		meta = map[string]any{}
	}
	if c.level != "" {
		meta[mcp.MetaKeyLogLevel] = c.level
	}
	if c.callerCaps != nil && r != nil && r.advertised != nil {
		caps := *r.advertised
		if c.callerCaps.Sampling == nil {
			caps.Sampling = nil
		}
		if c.callerCaps.Elicitation == nil {
			caps.Elicitation = nil
		}
		if !r.configRoots && !HasRoots(c.callerCaps) {
			caps.RootsV2, caps.Roots = nil, mcp.RootCapabilities{}
		}
		// The wire form the go-sdk sends (its roots field is RootsV2).
		meta[mcp.MetaKeyClientCapabilities] = struct {
			mcp.ClientCapabilities
			Roots *mcp.RootCapabilities `json:"roots,omitempty"`
		}{caps, caps.RootsV2}
	}
	p.SetMeta(meta)
}
