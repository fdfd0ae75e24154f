package actors_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// A secret planted in a tool's arguments, the server's env and a
// resource URI's user info and query: no span may carry it.
const plantedSecret = "sekrit-7f3a9c"

// tracedProvider records every span as it ends (synchronously: a span
// is in the exporter before the request that ended it returns).
func tracedProvider(t *testing.T) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, exp
}

// metaServer is an in-memory upstream whose tools, prompt and resource
// record the _meta of each request they get.
type metaServer struct {
	mu    sync.Mutex
	metas []map[string]any
}

func (m *metaServer) record(meta map[string]any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.metas = append(m.metas, meta)
}

func (m *metaServer) seen() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.metas...)
}

const secretURI = "secret://user:" + plantedSecret + "@host/doc?token=" + plantedSecret

func (m *metaServer) server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	srv.AddTool(tool("echo", "e"), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		m.record(req.Params.GetMeta())
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	srv.AddTool(tool("broken", "b"), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		m.record(req.Params.GetMeta())
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no"}}, IsError: true}, nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: "greet"}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		m.record(req.Params.GetMeta())
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
	})
	srv.AddResource(&mcp.Resource{Name: "doc", URI: secretURI}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		m.record(req.Params.GetMeta())
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: secretURI, Text: "doc"}}}, nil
	})
	return srv
}

// spanNamed returns the one ended span of that name.
func spanNamed(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q, want 1; spans: %v", len(found), name, spanNames(spans))
	}
	return found[0]
}

func spanNames(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

func attrs(s tracetest.SpanStub) map[attribute.Key]string {
	out := map[attribute.Key]string{}
	for _, kv := range s.Attributes {
		out[kv.Key] = kv.Value.String()
	}
	return out
}

// wantAttrs checks that s carries want (and, for each key mapped to "",
// that it does not carry it).
func wantAttrs(t *testing.T, s tracetest.SpanStub, want map[attribute.Key]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		if g, ok := got[k]; v == "" && ok {
			t.Errorf("%s: %s = %q, want none", s.Name, k, g)
		} else if v != "" && g != v {
			t.Errorf("%s: %s = %q, want %q", s.Name, k, g, v)
		}
	}
}

// noSecretIn fails if any span's name, attribute, status or event holds
// the planted secret.
func noSecretIn(t *testing.T, spans tracetest.SpanStubs) {
	t.Helper()
	for _, s := range spans {
		texts := []string{s.Name, s.Status.Description}
		for _, kv := range s.Attributes {
			texts = append(texts, string(kv.Key), kv.Value.String())
		}
		for _, e := range s.Events {
			texts = append(texts, e.Name)
			for _, kv := range e.Attributes {
				texts = append(texts, kv.Value.String())
			}
		}
		for _, text := range texts {
			if strings.Contains(text, plantedSecret) || strings.Contains(text, "token=") {
				t.Errorf("span %q carries a secret: %q", s.Name, text)
			}
		}
	}
}

// remoteParent is the span context a request's _meta carried.
func remoteParent(meta map[string]any) trace.SpanContext {
	carrier := propagation.MapCarrier{}
	for k, v := range meta {
		if s, ok := v.(string); ok {
			carrier[k] = s
		}
	}
	return trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
}

// A call gets a client span, the child of the caller's span, named and
// attributed after the MCP conventions; the server gets its context in
// _meta. A connect gets a span whose children are the handshake and the
// first listing. Outcomes: ok, isError (tool_error). Resources show only
// their URI's scheme; nothing planted leaks.
func TestTracing_UpstreamSpansAndTheirContextInMeta(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	tp, exp := tracedProvider(t)
	up := &metaServer{}
	f := newFleet(t, map[string]func() *mcp.Server{"demo": up.server})
	path := configFor(t)
	writeConfig(t, path, map[string]any{"demo": map[string]any{"command": "in-memory", "env": map[string]any{"API_KEY": plantedSecret}}})
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{ConfigPaths: []string{path}, TracerProvider: tp})
	rec.WaitState(ctx, 0, "demo", messages.StateReady)

	caller, parent := tp.Tracer("test").Start(ctx, "caller")
	res, err := sup.CallTool(caller, "demo__echo", map[string]any{"password": plantedSecret})
	if err != nil || testkit.Text(res) != "ok" {
		t.Fatalf("call: %v %v", res, err)
	}
	if _, err := sup.CallTool(caller, "demo__broken", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sup.GetPrompt(caller, "demo__greet", map[string]string{"who": plantedSecret}); err != nil {
		t.Fatal(err)
	}
	if _, err := sup.ReadResource(caller, secretURI); err != nil {
		t.Fatal(err)
	}
	parent.End()
	spans := exp.GetSpans()

	call := spanNamed(t, spans, "tools/call echo")
	if call.Parent.SpanID() != parent.SpanContext().SpanID() || call.SpanContext.TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("tools/call's parent = %v, want the caller's span %v", call.Parent, parent.SpanContext())
	}
	if call.SpanKind != trace.SpanKindClient {
		t.Errorf("tools/call kind = %v, want client", call.SpanKind)
	}
	wantAttrs(t, call, map[attribute.Key]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
		"mcpvisor.server.name": "demo", "network.transport": "pipe", "mcp.protocol.version": "2026-07-28", "error.type": "",
	})
	wantAttrs(t, spanNamed(t, spans, "tools/call broken"), map[attribute.Key]string{"error.type": "tool_error"})
	wantAttrs(t, spanNamed(t, spans, "prompts/get greet"), map[attribute.Key]string{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "greet"})
	wantAttrs(t, spanNamed(t, spans, "resources/read"), map[attribute.Key]string{"mcp.method.name": "resources/read", "url.scheme": "secret", "mcp.resource.uri": ""})

	metas := up.seen()
	if len(metas) != 4 {
		t.Fatalf("the server saw %d requests, want 4", len(metas))
	}
	if got := remoteParent(metas[0]); got.TraceID() != parent.SpanContext().TraceID() || got.SpanID() != call.SpanContext.SpanID() {
		t.Errorf("the server's traceparent = %v (%v), want the tools/call span %v", got, metas[0]["traceparent"], call.SpanContext)
	}

	connect := spanNamed(t, spans, "connect demo")
	if connect.Status.Code.String() == "Error" {
		t.Errorf("connect span failed: %v", connect.Status)
	}
	for _, child := range []string{"server/discover", "tools/list", "prompts/list", "resources/list"} {
		if s := spanNamed(t, spans, child); s.Parent.SpanID() != connect.SpanContext.SpanID() {
			t.Errorf("%s's parent = %v, want the connect span", child, s.Parent.SpanID())
		}
	}
	noSecretIn(t, spans)
}

// Without a provider nothing is traced and nothing is propagated, even
// under a caller's valid span.
func TestTracing_OffPropagatesNothing(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	tp, exp := tracedProvider(t) // the caller's own tracing, not mcpvisor's
	up := &metaServer{}
	f := newFleet(t, map[string]func() *mcp.Server{"demo": up.server})
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{ConfigPaths: []string{configFor(t, "demo")}})
	rec.WaitState(ctx, 0, "demo", messages.StateReady)
	caller, parent := tp.Tracer("test").Start(ctx, "caller")
	if _, err := sup.CallTool(caller, "demo__echo", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	parent.End()
	if got := spanNames(exp.GetSpans()); len(got) != 1 {
		t.Errorf("spans %v, want only the caller's", got)
	}
	if meta := up.seen()[0]; meta["traceparent"] != nil {
		t.Errorf("the server got a traceparent with tracing off: %v", meta)
	}
}

// Over streamable HTTP the requests also carry traceparent as a header:
// the tools/call's POST has the call span's context.
func TestTracing_HTTPUpstreamGetsTraceparentHeader(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	tp, exp := tracedProvider(t)
	var mu sync.Mutex
	var headers []string
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return toolServer(tool("who", "w"))() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			mu.Lock()
			headers = append(headers, r.Header.Get("traceparent"))
			mu.Unlock()
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	path := configFor(t)
	writeConfig(t, path, map[string]any{"remote": map[string]any{"type": "http", "url": srv.URL + "/mcp?key=" + plantedSecret}})
	noDial := func(messages.ServerSpec) (mcp.Transport, error) { return nil, nil }
	sup, rec := startWithDial(t, quartz.NewMock(t).WithLogger(quartz.NoOpLogger), noDial, actors.Options{ConfigPaths: []string{path}, TracerProvider: tp})
	rec.WaitState(ctx, 0, "remote", messages.StateReady)
	caller, parent := tp.Tracer("test").Start(ctx, "caller")
	if _, err := sup.CallTool(caller, "remote__who", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	parent.End()
	spans := exp.GetSpans()
	call := spanNamed(t, spans, "tools/call who")
	wantAttrs(t, call, map[attribute.Key]string{"network.transport": "tcp", "network.protocol.name": "http", "server.address": "127.0.0.1"})
	want := call.SpanContext
	mu.Lock()
	defer mu.Unlock()
	var found bool
	for _, h := range headers {
		got := remoteParent(map[string]any{"traceparent": h})
		found = found || got.TraceID() == want.TraceID() && got.SpanID() == want.SpanID()
	}
	if !found {
		t.Errorf("no POST carried the tools/call span %v in traceparent; got %q", want, headers)
	}
	noSecretIn(t, spans)
}

// A connect that fails is a connect span with an error status (and its
// class, never the error's text).
func TestTracing_FailedConnectIsAnErrorSpan(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	tp, exp := tracedProvider(t)
	closedAtOnce := func(messages.ServerSpec) (mcp.Transport, error) {
		client, server := net.Pipe()
		_ = server.Close() // the server is gone before the handshake
		return &mcp.IOTransport{Reader: client, Writer: client}, nil
	}
	_, rec := startWithDial(t, quartz.NewMock(t).WithLogger(quartz.NoOpLogger), closedAtOnce,
		actors.Options{ConfigPaths: []string{configFor(t, "gone")}, TracerProvider: tp})
	rec.WaitState(ctx, 0, "gone", messages.StateFailed)
	s := spanNamed(t, exp.GetSpans(), "connect gone")
	if s.Status.Code != codes.Error || s.Status.Description != "connect failed" {
		t.Errorf("status %v %q, want Error \"connect failed\"", s.Status.Code, s.Status.Description)
	}
	wantAttrs(t, s, map[attribute.Key]string{"error.type": "_OTHER", "mcpvisor.server.name": "gone"})
}
