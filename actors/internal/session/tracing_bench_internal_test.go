package session

import (
	"context"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/benchcpu"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpvisor/mcpvisor/messages"
)

// What the upstream middleware adds to one tools/call, measured around
// a next that answers at once: none (no middleware: what a Supervisor
// without a provider runs), a no-op provider, and an in-memory exporter
// recording each span synchronously (emptied every 4096 calls), and a
// batching processor over a no-op exporter, as run and serve use. Each
// call builds fresh params, as CallTool does.
func BenchmarkTracing_UpstreamMiddleware(b *testing.B) {
	result := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return result, nil }
	spec := messages.ServerSpec{Name: "demo", Transport: messages.TransportStdio}
	exp := tracetest.NewInMemoryExporter()
	recorded := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	b.Cleanup(func() { _ = recorded.Shutdown(context.Background()) })
	// As run and serve export: batched, off the call path (blocking when
	// the queue is full rather than dropping, so every span is paid for).
	batched := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter(), sdktrace.WithBlocking()))
	b.Cleanup(func() { _ = batched.Shutdown(context.Background()) })
	for _, tc := range []struct {
		name string
		h    mcp.MethodHandler
	}{
		{"none", next},
		{"noop", NewTracing(noop.NewTracerProvider(), "test").upstream(spec)(next)},
		{"inmemory", NewTracing(recorded, "test").upstream(spec)(next)},
		{"batched", NewTracing(batched, "test").upstream(spec)(next)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			n := 0
			cpu := benchcpu.PerOp(b)
			for b.Loop() {
				req := &mcp.ClientRequest[*mcp.CallToolParams]{Params: &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}}
				if _, err := tc.h(ctx, "tools/call", req); err != nil {
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
