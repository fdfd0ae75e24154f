package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
)

// BenchmarkGateway_CallOverHTTP calls the example server's echo over
// streamable HTTP on 127.0.0.1: through one raw hop (the server behind the
// go-sdk's own handler) and through the gateway's HTTP handler (its guards,
// its stateful and stateless handlers, then the in-memory path of
// BenchmarkGateway_CallInMemory). Each sub-benchmark runs under the
// protocol the client pins, the oldest the gateway serves statefully and
// the newest, served stateless. cpu-ns/op counts both ends.
//
//	go test -run '^$' -bench Gateway_CallOverHTTP -benchmem -count 6 ./actors/gateway/
func BenchmarkGateway_CallOverHTTP(b *testing.B) {
	for _, pin := range []string{"2025-11-25", "2026-07-28"} {
		b.Run("hop/"+pin, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			srv := exampleserver.New(exampleserver.Options{Name: "example"})
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: pin >= "2026-07-28"})
			callOverHTTP(b, ctx, h, "", pin, "echo")
		})
		b.Run("gateway/"+pin, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			gw, _ := realGateway(b, ctx)
			h, err := gw.Handler(gateway.HTTPOptions{Token: testToken})
			if err != nil {
				b.Fatal(err)
			}
			callOverHTTP(b, ctx, h, testToken, pin, "demo__echo")
		})
	}
}

func callOverHTTP(b *testing.B, ctx context.Context, h http.Handler, token, pin, tool string) {
	ts := httptest.NewServer(h)
	defer ts.Close()
	hc := ts.Client()
	if token != "" {
		hc.Transport = bearer{token: token, next: hc.Transport}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + gateway.Path, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	p := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"message": "hello"}}
	b.ReportAllocs()
	defer actorstest.CPUPerOp(b)()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}
