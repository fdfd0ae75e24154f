package gateway_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// The cost of tracing on the whole call path, client → gateway →
// Supervisor → session → in-memory upstream: no provider (nothing
// installed), a no-op provider (every hook runs, nothing is recorded)
// and an in-memory exporter (a gateway span and an upstream span per
// call, recorded synchronously; emptied every 4096 calls so memory stays
// flat). Target: noop within noise of none; inmemory under 5µs more.
func BenchmarkTracing_GatewayCall(b *testing.B) {
	for _, tc := range []struct {
		name string
		tp   func(b *testing.B) (trace.TracerProvider, func())
	}{
		{"none", func(*testing.B) (trace.TracerProvider, func()) { return nil, func() {} }},
		{"noop", func(*testing.B) (trace.TracerProvider, func()) { return noop.NewTracerProvider(), func() {} }},
		{"inmemory", func(b *testing.B) (trace.TracerProvider, func()) {
			exp := tracetest.NewInMemoryExporter()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			return tp, exp.Reset
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			tp, reset := tc.tp(b)
			r := startTracedRig(b, tp)
			cs := r.client(b, ctx)
			p := &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{}}
			b.ReportAllocs()
			n := 0
			cpu := actorstest.CPUPerOp(b)
			for b.Loop() {
				if _, err := cs.CallTool(ctx, p); err != nil {
					b.Fatal(err)
				}
				if n++; n%4096 == 0 {
					reset()
				}
			}
			cpu()
		})
	}
}
