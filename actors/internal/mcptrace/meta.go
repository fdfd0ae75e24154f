package mcptrace

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The W3C trace context travels in params._meta as "traceparent" and
// "tracestate", the keys of the HTTP headers.
var w3c propagation.TraceContext

// metaCarrier reads and writes string values of a _meta map.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// Inject writes ctx's span context into the request's _meta (a request
// of no params, or a context with no valid span, is left alone). The
// params are the request's own, built for this one send.
func Inject(ctx context.Context, params mcp.Params) {
	p, ok := params.(mcp.RequestParams)
	if !ok || !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	meta := p.GetMeta()
	if meta == nil {
		meta = map[string]any{}
	}
	w3c.Inject(ctx, metaCarrier(meta))
	p.SetMeta(meta)
}

// Extract returns ctx with the remote span context the request's _meta
// carries, if it carries a valid one.
func Extract(ctx context.Context, params mcp.Params) context.Context {
	p, ok := params.(mcp.RequestParams)
	if !ok {
		return ctx
	}
	meta := p.GetMeta()
	if len(meta) == 0 {
		return ctx
	}
	if _, ok := meta["traceparent"]; !ok {
		return ctx
	}
	return w3c.Extract(ctx, metaCarrier(meta))
}

// Headers is the HTTP carrier of the same context.
func Headers(ctx context.Context, carrier propagation.HeaderCarrier) {
	w3c.Inject(ctx, carrier)
}
