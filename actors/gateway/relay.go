//lint:file-ignore SA1019 sampling and logging are deprecated from protocol 2026-07-28 on (SEP-2577) but are what this file relays.

package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Relay forwards what upstream servers send back to their client
// (sampling and elicitation requests, log messages) to the gateway's
// clients. The Supervisor needs its handlers before it starts, and the
// gateway needs the Supervisor, so a Relay is made first: Install it in
// the Supervisor's options, then Bind the gateway.
//
// A request goes to the client whose call it came during (the session's
// call context carries the client, see actors.WithCaller), else (the
// server's config allows requests outside a call: the session refuses
// them otherwise) to the gateway's only client, else it is refused with
// an error saying why. It arrives naming its server (in _meta, and at the
// start of an elicitation's message) and within the server's rate. A
// client that did not advertise the capability is never asked: the
// server gets an error. Log messages go to the calling client when they
// belong to a call, else to every client, each at the level it set.
type Relay struct {
	gw atomic.Pointer[Gateway]
	// Default is what a server that connects before any client of the
	// gateway has initialized is told the client can do; nil: nothing (no
	// sampling, elicitation or roots), so that such a server never lists
	// a tool that the client, when it comes, cannot serve. Set it (serve's
	// --assume-client-capabilities) to what the gateway's clients are
	// known to have. Set before Install; not changed after.
	Default *mcp.ClientCapabilities
}

// ErrNoClient: an upstream server asked for something that no client of
// the gateway can be asked for. The server gets it as the JSON-RPC error
// -32601 (method not found), as from a client without the capability.
var ErrNoClient = errors.New("no gateway client to ask")

// noClient is an ErrNoClient refusal, with the code the server gets.
func noClient(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &refusal{wire: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: ErrNoClient.Error() + ": " + msg}}
}

// refusal is an error both errors.Is(ErrNoClient) and, for the go-sdk
// that answers the server with it, a *jsonrpc.Error.
type refusal struct{ wire *jsonrpc.Error }

func (e *refusal) Error() string   { return e.wire.Message }
func (e *refusal) Unwrap() []error { return []error{e.wire, ErrNoClient} }

// Install sets the Supervisor options the relay answers: Sampling,
// Elicitation, Roots and Logging, and Honourable, which says which of
// them the gateway's clients can answer when a server connects; each
// request is answered by a client that can (roots: see relay_roots.go).
func (r *Relay) Install(o *actors.Options) {
	o.Sampling = r.sample
	o.Elicitation = r.elicit
	o.Roots = r.roots
	o.Logging = r.log
	o.Honourable = r.honourable
}

// honourable is what a server that connects now is told the gateway can
// do: each of sampling, elicitation (with its form and url modes) and
// roots that a connected client advertised (the union over them). A
// server's session keeps what it was told (protocols before 2026-07-28
// fix capabilities at initialize, and reconnecting a running server for
// a client is not worth its state), and on 2026-07-28 each call narrows
// it to its own client's. Before any client has initialized (the servers
// of a starting gateway connect before its first client) it is Default:
// nothing unless configured, so that what such a server lists never
// depends on which client comes first, and it never lists a tool for a
// capability a client lacks. The gap that remains: a server that
// connects while a client is there is told that client's capabilities,
// and may ask a later client that cannot answer; it is then refused
// (-32601) or declined.
func (r *Relay) honourable() *mcp.ClientCapabilities {
	union := &mcp.ClientCapabilities{}
	clients := 0
	if g := r.gw.Load(); g != nil {
		for ss := range g.server.Sessions() {
			init := ss.InitializeParams()
			if init == nil || init.Capabilities == nil {
				continue // not initialized yet: its capabilities are not known
			}
			clients++
			addCapabilities(union, init.Capabilities)
		}
	}
	if clients == 0 {
		if r.Default == nil {
			return &mcp.ClientCapabilities{}
		}
		union = &mcp.ClientCapabilities{}
		addCapabilities(union, r.Default)
	}
	return union
}

// addCapabilities adds to union the sampling, elicitation (and its
// modes: neither form nor url is form) and roots of c.
func addCapabilities(union, c *mcp.ClientCapabilities) {
	if c.Sampling != nil {
		union.Sampling = &mcp.SamplingCapabilities{}
	}
	if e := c.Elicitation; e != nil {
		if union.Elicitation == nil {
			union.Elicitation = &mcp.ElicitationCapabilities{}
		}
		if e.Form != nil || e.URL == nil {
			union.Elicitation.Form = &mcp.FormElicitationCapabilities{}
		}
		if e.URL != nil {
			union.Elicitation.URL = &mcp.URLElicitationCapabilities{}
		}
	}
	if c.RootsV2 != nil || c.Roots.ListChanged {
		union.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
}

// Bind makes g the gateway whose clients the relay asks.
func (r *Relay) Bind(g *Gateway) { r.gw.Store(g) }

func (r *Relay) sample(ctx context.Context, server string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	ss, err := r.client(ctx, server, "sampling", func(c *mcp.ClientCapabilities) bool { return c.Sampling != nil })
	if err != nil {
		return nil, err
	}
	return ss.CreateMessage(ctx, p)
}

func (r *Relay) elicit(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	mode, has := elicitationMode(p)
	ss, err := r.client(ctx, server, mode, has)
	if err != nil {
		return nil, err
	}
	return ss.Elicit(ctx, p)
}

// elicitationMode names the capability an elicitation needs, and says
// whether a client has it: url mode needs elicitation.url, form mode
// elicitation.form, or an elicitation capability that names no mode.
func elicitationMode(p *mcp.ElicitParams) (string, func(*mcp.ClientCapabilities) bool) {
	if p != nil && (p.Mode == "url" || p.Mode == "" && (p.URL != "" || p.ElicitationID != "")) {
		return "url elicitation", func(c *mcp.ClientCapabilities) bool { return c.Elicitation != nil && c.Elicitation.URL != nil }
	}
	return "elicitation", func(c *mcp.ClientCapabilities) bool {
		return c.Elicitation != nil && (c.Elicitation.Form != nil || c.Elicitation.URL == nil)
	}
}

// client finds who to ask: the calling client, else the only one.
func (r *Relay) client(ctx context.Context, server, capability string, has func(*mcp.ClientCapabilities) bool) (*mcp.ServerSession, error) {
	g := r.gw.Load()
	if g == nil {
		return nil, noClient("server %q asked for %s before the gateway served anyone", server, capability)
	}
	ss, _ := actors.CallerOf(ctx).(*mcp.ServerSession)
	if ss == nil {
		n := 0
		for s := range g.server.Sessions() {
			ss, n = s, n+1
		}
		if n != 1 {
			return nil, noClient("server %q asked for %s outside any call of a gateway client, and the gateway has %d clients: mcpvisor cannot tell whose it is", server, capability, n)
		}
	}
	init := ss.InitializeParams()
	if init == nil || init.Capabilities == nil || !has(init.Capabilities) {
		return nil, noClient("server %q asked for %s, which the gateway's client did not advertise", server, capability)
	}
	return ss, nil
}

// log relays one upstream log message, its logger naming the server.
func (r *Relay) log(ctx context.Context, server string, p *mcp.LoggingMessageParams) {
	g := r.gw.Load()
	if g == nil {
		return
	}
	cp := *p
	cp.Logger = server
	if p.Logger != "" && p.Logger != server {
		cp.Logger = server + "/" + p.Logger
	}
	if ss, ok := actors.CallerOf(ctx).(*mcp.ServerSession); ok {
		// ss.Log keeps to the level of the client's request (2026-07-28)
		// or session (logging/setLevel), and drops what is below it.
		if err := ss.Log(ctx, &cp); err != nil {
			g.log.Debug("log message not relayed", zap.String("server", server), zap.Error(err))
		}
		return
	}
	for ss := range g.server.Sessions() {
		if err := ss.Log(context.WithoutCancel(ctx), &cp); err != nil {
			g.log.Debug("log message not relayed", zap.String("server", server), zap.Error(err))
		}
	}
}

// callOptions are what a gateway call (or get, or read) passes to the fleet besides its
// arguments: the calling client (for requests that come during the call),
// the client's progressToken, mapped to a callback that relays each
// upstream notifications/progress to that client only under the client's
// own token, the client's log level on protocol 2026-07-28, and its
// capabilities (which such a call carries upstream). A client on
// 2026-07-28 also answers the servers' input requests itself: the fleet
// passes them through to it, and its retry's answers upstream. For an
// older client the fleet answers them, through the relay's Sampling and
// Elicitation, which ask the client by request.
func callOptions(ctx context.Context, ss *mcp.ServerSession, params mcp.RequestParams, caps *mcp.ClientCapabilities) (context.Context, []actors.CallOption) {
	ctx = actors.WithCaller(ctx, ss)
	if caps == nil {
		caps = &mcp.ClientCapabilities{}
	}
	opts := []actors.CallOption{actors.WithClientCapabilities(caps)}
	if token := params.GetProgressToken(); token != nil {
		opts = append(opts, actors.WithProgress(func(p messages.Progress) {
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message,
			})
		}))
	}
	if level, ok := params.GetMeta()[mcp.MetaKeyLogLevel].(string); ok && level != "" {
		opts = append(opts, actors.WithLogLevel(level))
	}
	if init := ss.InitializeParams(); init != nil && init.ProtocolVersion >= statelessFrom {
		// The client answers input requests itself: they reach it in the
		// result, and its retry brings the answers (see inputResponses).
		responses, state := inputResponses(params)
		opts = append(opts, actors.WithInputPassThrough(responses, state))
	}
	return ctx, opts
}

// inputResponses are the answers to input requests, and the state to
// echo, that a client's retried call, get or read carries.
func inputResponses(params mcp.RequestParams) (mcp.InputResponseMap, string) {
	switch p := params.(type) {
	case *mcp.CallToolParamsRaw:
		return p.InputResponses, p.RequestState
	case *mcp.GetPromptParams:
		return p.InputResponses, p.RequestState
	case *mcp.ReadResourceParams:
		return p.InputResponses, p.RequestState
	}
	return nil, ""
}

// logLevels follows the logging/setLevel of the gateway's clients: every
// upstream that supports logging is asked for the most verbose level any
// client set.
type logLevels struct {
	mu     sync.Mutex
	levels map[*mcp.ServerSession]mcp.LoggingLevel
	asked  mcp.LoggingLevel
}

// levelSetter is the part of a Source that passes a log level on to the
// upstream servers; *actors.Supervisor has it.
type levelSetter interface {
	SetLogLevel(ctx context.Context, level string) error
}

// order ranks the levels, most verbose first.
var order = map[mcp.LoggingLevel]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// setLevelMiddleware records every client's logging/setLevel (the go-sdk
// then keeps it on the client's session and filters ss.Log by it) and
// passes the most verbose one on to the fleet before it answers, so that
// the client's next call logs at its level.
func (g *Gateway) setLevelMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := req.(*mcp.ServerRequest[*mcp.SetLoggingLevelParams]); ok && method == "logging/setLevel" && err == nil && r.Params != nil {
			g.levels.set(ctx, g, r.Session, r.Params.Level)
		}
		return res, err
	}
}

// set records one client's level (forgetting clients that are gone) and
// passes the most verbose level on when it changed.
func (l *logLevels) set(ctx context.Context, g *Gateway, ss *mcp.ServerSession, level mcp.LoggingLevel) {
	setter, ok := g.src.(levelSetter)
	if !ok {
		return
	}
	live := map[*mcp.ServerSession]bool{}
	for s := range g.server.Sessions() {
		live[s] = true
	}
	l.mu.Lock()
	if l.levels == nil {
		l.levels = map[*mcp.ServerSession]mcp.LoggingLevel{}
	}
	l.levels[ss] = level
	var most mcp.LoggingLevel
	for s, lv := range l.levels {
		if s != ss && !live[s] {
			delete(l.levels, s)
			continue
		}
		if most == "" || order[lv] < order[most] {
			most = lv
		}
	}
	changed := most != l.asked
	l.asked = most
	l.mu.Unlock()
	if changed {
		if err := setter.SetLogLevel(ctx, string(most)); err != nil {
			g.log.Debug("log level not passed on", zap.Error(err))
		}
	}
}
