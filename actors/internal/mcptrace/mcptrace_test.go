package mcptrace_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpvisor/mcpvisor/actors/internal/mcptrace"
)

// Only a URI's scheme is ever read; anything that is not one yields "".
func TestScheme(t *testing.T) {
	t.Parallel()
	for uri, want := range map[string]string{
		"https://user:pass@host/path?token=x": "https",
		"file:///etc/passwd":                  "file",
		"urn:isbn:0451450523":                 "urn",
		"git+ssh://host/repo":                 "git+ssh",
		"example://static/readme":             "example",
		"no-scheme-here":                      "",
		":leading-colon":                      "",
		"1bad:scheme":                         "",
		"/abs/path:with-colon":                "",
		"sp ace:x":                            "",
		"":                                    "",
	} {
		if got := mcptrace.Scheme(uri); got != want {
			t.Errorf("Scheme(%q) = %q, want %q", uri, got, want)
		}
	}
}

// End's classes: success, isError, JSON-RPC codes (an error on the
// client side always, on the server side only internal and server
// errors), canceled, connection closed, anything else.
func TestEnd_RecordsTheOutcomeClass(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	for _, tc := range []struct {
		name      string
		res       mcp.Result
		err       error
		server    bool
		errorType string
		code      string
	}{
		{name: "ok", res: &mcp.CallToolResult{}},
		{name: "tool error", res: &mcp.CallToolResult{IsError: true}, errorType: "tool_error"},
		{name: "client invalid params", err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "secret-in-message"}, errorType: "-32602", code: "-32602"},
		{name: "server invalid params", server: true, err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams}, code: "-32602"},
		{name: "server internal", server: true, err: &jsonrpc.Error{Code: jsonrpc.CodeInternalError}, errorType: "-32603", code: "-32603"},
		{name: "server error range", server: true, err: fmt.Errorf("wrapped: %w", &jsonrpc.Error{Code: -32050}), errorType: "-32050", code: "-32050"},
		{name: "canceled", err: fmt.Errorf("calling: %w", context.Canceled), errorType: "canceled"},
		{name: "connection closed", err: mcp.ErrConnectionClosed, errorType: "connection_closed"},
		{name: "other", err: errors.New("EOF with secret-in-message"), errorType: "_OTHER"},
	} {
		exp.Reset()
		_, span := tp.Tracer("test").Start(context.Background(), tc.name)
		isError := mcptrace.ClientCodeIsError
		if tc.server {
			isError = mcptrace.ServerCodeIsError
		}
		mcptrace.End(span, tc.res, tc.err, isError)
		s := exp.GetSpans()[0]
		got := map[string]string{}
		for _, kv := range s.Attributes {
			got[string(kv.Key)] = kv.Value.String()
		}
		if got["error.type"] != tc.errorType || got["rpc.response.status_code"] != tc.code {
			t.Errorf("%s: error.type %q, code %q; want %q, %q", tc.name, got["error.type"], got["rpc.response.status_code"], tc.errorType, tc.code)
		}
		wantStatus := codes.Unset
		if tc.errorType != "" {
			wantStatus = codes.Error
		}
		if s.Status.Code != wantStatus || s.Status.Description != tc.errorType {
			t.Errorf("%s: status %v %q, want %v %q (the class, never the message)", tc.name, s.Status.Code, s.Status.Description, wantStatus, tc.errorType)
		}
	}
}

// The trace context goes into a request's own _meta, next to what is
// there, and comes back out; a context with no span adds nothing.
func TestInjectExtract_RoundTripInMeta(t *testing.T) {
	t.Parallel()
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, span := tp.Tracer("test").Start(context.Background(), "caller")
	defer span.End()

	bare := &mcp.CallToolParams{Name: "x"}
	mcptrace.Inject(context.Background(), bare)
	if bare.Meta != nil {
		t.Errorf("no span, yet _meta = %v", bare.Meta)
	}
	p := &mcp.CallToolParams{Name: "x", Meta: mcp.Meta{"progressToken": "t1"}}
	mcptrace.Inject(ctx, p)
	if p.Meta["progressToken"] != "t1" || p.Meta["traceparent"] == nil {
		t.Fatalf("_meta = %v: want the token kept and a traceparent added", p.Meta)
	}
	got := mcptrace.Extract(context.Background(), &mcp.CallToolParamsRaw{Meta: p.Meta})
	if sc := span.SpanContext(); !sc.Equal(traceSpanContext(got).WithRemote(false)) {
		t.Errorf("extracted %v, want %v", traceSpanContext(got), sc)
	}
}

func traceSpanContext(ctx context.Context) trace.SpanContext {
	return trace.SpanContextFromContext(ctx)
}
