package session

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpvisor/mcpvisor/actors/internal/mcptrace"
	"github.com/mcpvisor/mcpvisor/actors/internal/transport"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Tracing (Options.TracerProvider): a client span per request a session
// sends upstream, a span per connect (the handshake and the first
// listing, whose requests are its children), and the W3C trace context
// of each request carried upstream in its params._meta and, over HTTP,
// in the traceparent and tracestate headers. The spans follow the
// OpenTelemetry semantic conventions for MCP; what they may carry is
// narrow (see actors/internal/mcptrace). Notifications get no span, nor
// do health probes' pings (which have no parent): a trace per ping and
// server every 30s would bury the calls.
//
// Without a provider nothing here runs: Deps.Tracing is nil,
// no middleware is installed, no HTTP transport is wrapped and a call
// pays one nil check per connect.

// tracerName is the instrumentation scope of mcpvisor's spans.
const tracerName = "github.com/mcpvisor/mcpvisor"

// clientSpan is the start option of every upstream span, built once: a
// call pays for no option slice.
var clientSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}

// Tracing is a Supervisor's tracer of what its sessions send; a nil
// *Tracing traces nothing.
type Tracing struct {
	tracer trace.Tracer
}

// NewTracing is the tracer of tp (nil: none), its spans stamped with
// mcpvisor's version.
func NewTracing(tp trace.TracerProvider, version string) *Tracing {
	if tp == nil {
		return nil
	}
	return &Tracing{tracer: tp.Tracer(tracerName, trace.WithInstrumentationVersion(version))}
}

// instrument installs the upstream spans and _meta propagation on a
// session's client.
func (t *Tracing) instrument(client *mcp.Client, spec messages.ServerSpec) {
	if t == nil {
		return
	}
	client.AddSendingMiddleware(t.upstream(spec))
}

// upstream is the sending middleware: one client span per request, named
// "{method} {tool or prompt}", its context injected into the request's
// _meta.
func (t *Tracing) upstream(spec messages.ServerSpec) mcp.Middleware {
	base := upstreamAttributes(spec)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if strings.HasPrefix(method, "notifications/") || method == "ping" && !trace.SpanContextFromContext(ctx).IsValid() {
				return next(ctx, method, req)
			}
			params := req.GetParams()
			ctx, span := t.tracer.Start(ctx, mcptrace.SpanName(method, mcptrace.TargetName(params)), clientSpan...)
			if span.IsRecording() {
				// One slice, one SetAttributes: the SDK copies them once.
				attrs := make([]attribute.KeyValue, 0, len(base)+4)
				attrs = append(append(attrs, base...), mcptrace.Method.String(method))
				attrs = mcptrace.AppendTarget(attrs, params)
				if cs, ok := req.GetSession().(*mcp.ClientSession); ok && cs != nil {
					if init := cs.InitializeResult(); init != nil {
						attrs = append(attrs, mcptrace.ProtocolVersion.String(init.ProtocolVersion))
					}
				}
				span.SetAttributes(attrs...)
			}
			mcptrace.Inject(ctx, params)
			res, err := next(ctx, method, req)
			if init, ok := res.(*mcp.InitializeResult); ok && init != nil && span.IsRecording() {
				span.SetAttributes(mcptrace.ProtocolVersion.String(init.ProtocolVersion))
			}
			mcptrace.End(span, res, err, mcptrace.ClientCodeIsError)
			return res, err
		}
	}
}

// upstreamAttributes say where a session's requests go: the server's
// name, the transport (pipe for stdio, tcp for HTTP) and an HTTP
// server's host and port, never its path, query or credentials.
func upstreamAttributes(spec messages.ServerSpec) []attribute.KeyValue {
	attrs := []attribute.KeyValue{mcptrace.Server.String(spec.Name)}
	switch spec.Transport {
	case messages.TransportHTTP, messages.TransportSSE:
		attrs = append(attrs, mcptrace.NetworkTransport.String("tcp"), mcptrace.NetworkProtocol.String("http"))
		if u, err := url.Parse(spec.URL); err == nil && u.Host != "" {
			host, port := u.Hostname(), u.Port()
			attrs = append(attrs, mcptrace.ServerAddress.String(host))
			if port == "" {
				port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
			}
			if n, err := strconv.Atoi(port); err == nil {
				attrs = append(attrs, mcptrace.ServerPort.Int(n))
			}
		}
	case messages.TransportStdio, "":
		attrs = append(attrs, mcptrace.NetworkTransport.String("pipe"))
	}
	return attrs
}

// startConnect starts the span of one connect; ctx is returned as it
// came without tracing.
func (t *Tracing) startConnect(ctx context.Context, spec messages.ServerSpec) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nil
	}
	ctx, span := t.tracer.Start(ctx, "connect "+spec.Name, clientSpan...)
	if span.IsRecording() {
		span.SetAttributes(upstreamAttributes(spec)...)
	}
	return ctx, span
}

// endConnect ends a connect's span: the protocol the session speaks, or
// that it failed (stopped while connecting counts as canceled). The
// error's text stays out: it may quote the server's stderr.
func (t *Tracing) endConnect(ctx context.Context, span trace.Span, cs *mcp.ClientSession, err error) {
	if t == nil {
		return
	}
	switch {
	case err == nil:
		if init := cs.InitializeResult(); init != nil {
			span.SetAttributes(mcptrace.ProtocolVersion.String(init.ProtocolVersion))
		}
	case ctx.Err() != nil:
		span.SetAttributes(mcptrace.ErrorType.String(mcptrace.Canceled))
		span.SetStatus(codes.Error, mcptrace.Canceled)
	default:
		span.SetAttributes(mcptrace.ErrorType.String(mcptrace.Other))
		span.SetStatus(codes.Error, "connect failed")
	}
	span.End()
}

// transports wraps the transport of each connect attempt (after next,
// the relay's own wrapping) so that the HTTP requests of a transport
// mcpvisor built itself (cn.OwnHTTP(): not a custom Dial's) carry the
// trace context of the request they send.
func (t *Tracing) transports(cn *transport.Conn, next func(mcp.Transport) mcp.Transport) func(mcp.Transport) mcp.Transport {
	if t == nil {
		return next
	}
	return func(tr mcp.Transport) mcp.Transport {
		if cn.OwnHTTP() {
			switch st := tr.(type) {
			case *mcp.StreamableClientTransport:
				traceHTTP(st.HTTPClient)
			case *mcp.SSEClientTransport:
				traceHTTP(st.HTTPClient)
			}
		}
		return next(tr)
	}
}

// traceHTTP makes an HTTP client of the session's own (built for this
// one connection, so no one else holds it) add the trace headers.
func traceHTTP(hc *http.Client) {
	if hc == nil {
		return
	}
	if _, done := hc.Transport.(traceHeaders); !done {
		hc.Transport = traceHeaders{next: hc.Transport}
	}
}

// traceHeaders adds traceparent (and tracestate) to requests made under
// a valid span context.
type traceHeaders struct{ next http.RoundTripper }

func (t traceHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	if !trace.SpanContextFromContext(req.Context()).IsValid() {
		return next.RoundTrip(req)
	}
	req = req.Clone(req.Context()) // a RoundTripper leaves the caller's request alone
	mcptrace.Headers(req.Context(), propagation.HeaderCarrier(req.Header))
	return next.RoundTrip(req)
}
