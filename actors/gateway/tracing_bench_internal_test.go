package gateway

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// What the gateway's middleware adds to one tools/call, around a next
// that answers at once: none (no middleware), a no-op provider, an
// in-memory exporter (synchronous, emptied every 4096 calls), a batching
// processor over a no-op exporter (as serve uses), and the
// in-memory exporter with a client traceparent in _meta to extract.
func BenchmarkTracing_GatewayMiddleware(b *testing.B) {
	result := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return result, nil }
	exp := tracetest.NewInMemoryExporter()
	recorded := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	b.Cleanup(func() { _ = recorded.Shutdown(context.Background()) })
	// As run and serve export: batched, off the call path (blocking when
	// the queue is full rather than dropping, so every span is paid for).
	batched := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter(), sdktrace.WithBlocking()))
	b.Cleanup(func() { _ = batched.Shutdown(context.Background()) })
	traced := func(opt Option) mcp.MethodHandler {
		g := &Gateway{}
		opt(g)
		return g.traced(next)
	}
	for _, tc := range []struct {
		name   string
		h      mcp.MethodHandler
		parent bool
	}{
		{"none", next, false},
		{"noop", traced(WithTracerProvider(noop.NewTracerProvider())), false},
		{"inmemory", traced(WithTracerProvider(recorded)), false},
		{"batched", traced(WithTracerProvider(batched)), false},
		{"inmemory+traceparent", traced(WithTracerProvider(recorded)), true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			n := 0
			cpu := actorstest.CPUPerOp(b)
			for b.Loop() {
				p := &mcp.CallToolParamsRaw{Name: "demo__echo", Arguments: json.RawMessage(`{}`)}
				if tc.parent {
					p.Meta = mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
				}
				if _, err := tc.h(ctx, "tools/call", &mcp.CallToolRequest{Params: p}); err != nil {
					b.Fatal(err)
				}
				if n++; n%4096 == 0 {
					exp.Reset()
				}
			}
			cpu()
		})
	}
}
