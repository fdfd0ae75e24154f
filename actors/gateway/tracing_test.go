package gateway_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/messages"
)

const plantedSecret = "sekrit-7f3a9c"

// tracedRig is a Supervisor over one in-memory server, "demo", whose
// tool echo records the _meta of each call (unless quiet), and a gateway
// over it, both traced with one provider (nil: untraced).
type tracedRig struct {
	gw    *gateway.Gateway
	quiet bool
	mu    sync.Mutex
	metas []map[string]any
}

// recordedProvider records every span as it ends (synchronously: a span
// is in the exporter before the request that ended it returns).
func recordedProvider(t testing.TB) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, exp
}

func startTracedRig(t testing.TB, tp trace.TracerProvider) *tracedRig {
	t.Helper()
	r := &tracedRig{}
	config := filepath.Join(t.TempDir(), "mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"demo": map[string]any{"command": "in-memory", "env": map[string]any{"TOKEN": plantedSecret}}}})
	if err := os.WriteFile(config, data, 0o600); err != nil {
		t.Fatal(err)
	}
	logger := zap.NewNop()
	var clock quartz.Clock = quartz.NewReal()
	if tt, ok := t.(*testing.T); ok {
		logger, clock = zaptest.NewLogger(tt), quartz.NewMock(tt).WithLogger(quartz.NoOpLogger)
	} else {
		r.quiet = true // a benchmark: keep nothing per call
	}
	sup, err := actors.Start(actors.Options{
		ConfigPaths: []string{config}, DisableWatch: true, ProbeInterval: -1,
		Clock: clock, Logger: logger, TracerProvider: tp,
		Dial: func(messages.ServerSpec) (mcp.Transport, error) {
			st, ct := mcp.NewInMemoryTransports()
			if _, err := r.upstream().Connect(context.Background(), st, nil); err != nil {
				return nil, err
			}
			return ct, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.gw = gateway.Mount(sup, gateway.MountOptions{Logger: logger, TracerProvider: tp})
	t.Cleanup(func() {
		r.gw.Close()
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return r
}

func (r *tracedRig) upstream() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !r.quiet {
			r.mu.Lock()
			r.metas = append(r.metas, req.Params.GetMeta())
			r.mu.Unlock()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	return srv
}

func (r *tracedRig) seen() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.metas)
}

// client connects a gateway client and waits until it lists demo__echo.
func (r *tracedRig) client(t testing.TB, ctx context.Context) *mcp.ClientSession {
	t.Helper()
	changed := make(chan struct{}, 64)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := r.gw.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	for {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) == 1 && res.Tools[0].Name == "demo__echo" {
			return cs
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("demo__echo never listed: %v", res.Tools)
		}
	}
}

func spanNamed(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q, want 1; spans: %v", len(found), name, names)
	}
	return found[0]
}

func attrOf(s tracetest.SpanStub, key attribute.Key) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value.String()
		}
	}
	return ""
}

func traceContextOf(meta map[string]any) trace.SpanContext {
	carrier := propagation.MapCarrier{}
	for k, v := range meta {
		if s, ok := v.(string); ok {
			carrier[k] = s
		}
	}
	return trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
}

// A client's traceparent in _meta is the parent of the gateway's server
// span, which is the parent of the upstream call's client span, whose
// context the server gets in its _meta: one trace from the client to
// the server. Lists get spans too; no argument or env value leaks.
func TestTracing_ClientToGatewayToUpstreamIsOneTrace(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	tp, exp := recordedProvider(t)
	r := startTracedRig(t, tp)
	cs := r.client(t, ctx)

	_, clientSpan := tp.Tracer("test-client").Start(ctx, "agent turn")
	meta := map[string]any{}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(trace.ContextWithSpan(ctx, clientSpan), carrier)
	for k, v := range carrier {
		meta[k] = v
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"password": plantedSecret}, Meta: meta})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", res, err)
	}
	clientSpan.End()
	spans := exp.GetSpans()

	gw := spanNamed(t, spans, "tools/call demo__echo")
	client := clientSpan.SpanContext()
	if gw.SpanKind != trace.SpanKindServer || gw.Parent.SpanID() != client.SpanID() || gw.SpanContext.TraceID() != client.TraceID() || !gw.Parent.IsRemote() {
		t.Errorf("gateway span: kind %v, parent %v (remote %v), want a server span under the client's %v", gw.SpanKind, gw.Parent.SpanID(), gw.Parent.IsRemote(), client.SpanID())
	}
	if got := attrOf(gw, "mcp.method.name"); got != "tools/call" {
		t.Errorf("gateway span mcp.method.name = %q", got)
	}
	if got := attrOf(gw, "gen_ai.tool.name"); got != "demo__echo" {
		t.Errorf("gateway span gen_ai.tool.name = %q", got)
	}
	up := spanNamed(t, spans, "tools/call echo")
	if up.SpanKind != trace.SpanKindClient || up.Parent.SpanID() != gw.SpanContext.SpanID() || up.SpanContext.TraceID() != client.TraceID() {
		t.Errorf("upstream span: kind %v, parent %v, want a client span under the gateway's %v", up.SpanKind, up.Parent.SpanID(), gw.SpanContext.SpanID())
	}
	if got := attrOf(up, "mcpvisor.server.name"); got != "demo" {
		t.Errorf("upstream span server = %q", got)
	}
	metas := r.seen()
	if len(metas) != 1 {
		t.Fatalf("the server saw %d calls", len(metas))
	}
	if got := traceContextOf(metas[0]); got.TraceID() != client.TraceID() || got.SpanID() != up.SpanContext.SpanID() {
		t.Errorf("the server's traceparent %v, want the upstream span's %v", metas[0]["traceparent"], up.SpanContext)
	}
	var listed bool // the client's lists, on the gateway (the upstream's are children of "connect demo")
	for _, s := range spans {
		listed = listed || s.Name == "tools/list" && s.SpanKind == trace.SpanKindServer && attrOf(s, "mcp.method.name") == "tools/list"
	}
	if !listed {
		t.Error("no server span for the client's tools/list")
	}
	for _, s := range spans {
		texts := []string{s.Name, s.Status.Description}
		for _, kv := range s.Attributes {
			texts = append(texts, kv.Value.String())
		}
		for _, text := range texts {
			if strings.Contains(text, plantedSecret) {
				t.Errorf("span %q carries the secret: %q", s.Name, text)
			}
		}
	}
}

// An unknown tool is the caller's mistake, not the gateway's failure: the
// span records the JSON-RPC code with no error status.
func TestTracing_GatewaySpanOfAnUnknownToolIsNoError(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	tp, exp := recordedProvider(t)
	r := startTracedRig(t, tp)
	cs := r.client(t, ctx)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__nope"}); err == nil {
		t.Fatal("unknown tool answered")
	}
	s := spanNamed(t, exp.GetSpans(), "tools/call demo__nope")
	if got := attrOf(s, "rpc.response.status_code"); got != "-32602" {
		t.Errorf("rpc.response.status_code = %q, want -32602", got)
	}
	if s.Status.Code.String() == "Error" || attrOf(s, "error.type") != "" {
		t.Errorf("status %v, error.type %q: want neither", s.Status, attrOf(s, "error.type"))
	}
}

// Without a provider the gateway makes no span and the upstream gets no
// traceparent, even when the client sent one.
func TestTracing_GatewayOffTracesNothing(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	_, exp := recordedProvider(t) // never given to mcpvisor
	r := startTracedRig(t, nil)
	cs := r.client(t, ctx)
	meta := map[string]any{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Meta: meta}); err != nil {
		t.Fatal(err)
	}
	if spans := exp.GetSpans(); len(spans) != 0 {
		t.Errorf("%d spans with tracing off", len(spans))
	}
	if got := r.seen()[0]["traceparent"]; got != nil {
		t.Errorf("upstream got traceparent %v with tracing off", got)
	}
}
