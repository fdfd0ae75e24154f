package gateway

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/internal/mcptrace"
)

// Tracing (WithTracerProvider): a server span per request a client sends
// the gateway (calls, gets, reads, completions, lists, subscriptions;
// not notifications or pings), named "{method} {tool or prompt}" after
// the OpenTelemetry semantic conventions for MCP. A traceparent in the
// request's params._meta is its remote parent; its context is the
// request's, so the Source's upstream spans (Options.TracerProvider of
// the Supervisor) are its children. The server a request went to is on
// those child spans, as are the upstream's answers.

// WithTracerProvider traces the gateway's requests with tp (nil: none,
// the default, at no cost: no middleware is installed).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(g *Gateway) {
		if tp != nil {
			g.tracer = tp.Tracer("github.com/mcpvisor/mcpvisor/gateway", trace.WithInstrumentationVersion(actors.Version))
		}
	}
}

// serverSpan is the start option of every gateway span, built once.
var serverSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}

// traced is the outermost receiving middleware: its span covers the
// whole request, the startup hold included.
func (g *Gateway) traced(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") || method == "ping" {
			return next(ctx, method, req)
		}
		params := req.GetParams()
		ctx = mcptrace.Extract(ctx, params)
		ctx, span := g.tracer.Start(ctx, mcptrace.SpanName(method, mcptrace.TargetName(params)), serverSpan...)
		if span.IsRecording() {
			attrs := make([]attribute.KeyValue, 0, 3)
			span.SetAttributes(mcptrace.AppendTarget(append(attrs, mcptrace.Method.String(method)), params)...)
		}
		res, err := next(ctx, method, req)
		mcptrace.End(span, res, err, mcptrace.ServerCodeIsError)
		return res, err
	}
}
