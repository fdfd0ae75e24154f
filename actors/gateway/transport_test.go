package gateway_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Over streamable HTTP, a default client (routed to the stateless handler,
// protocol 2026-07-28) and a legacy one (stateful, 2025-11-25) share one
// tool set, can call tools and are both told when it changes. Shutting
// down with both still connected returns at once: their open streams are
// closed before http.Server.Shutdown.
func TestGateway_HTTPClientsOfBothProtocols(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	h := startGateway(t, &fakeSource{tools: []messages.Tool{tool("alpha", "echo", "Echoes.")}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stopServing := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- h.gw.ServeListener(serveCtx, ln, gateway.HTTPOptions{Token: testToken}) }()
	endpoint := "http://" + ln.Addr().String() + gateway.Path

	var clients []*client
	for _, p := range protocols {
		c := connectHTTP(t, ctx, endpoint, p.pin)
		if got := c.cs.InitializeResult().ProtocolVersion; got != p.want {
			t.Fatalf("%s client negotiated %q, want %q", p.name, got, p.want)
		}
		c.waitTools(ctx, "alpha__echo")
		res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo", Arguments: map[string]any{"message": "hi"}})
		if err != nil {
			t.Fatalf("%s client: call: %v", p.name, err)
		}
		if got := text(t, res); got != "called alpha__echo" {
			t.Fatalf("%s client: result %q", p.name, got)
		}
		clients = append(clients, c)
	}

	h.toolsChanged("beta", tool("beta", "pid", "Pid."))
	for _, c := range clients {
		c.expectChange(ctx, "alpha__echo", "beta__pid")
	}

	stopServing()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("ServeListener: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeListener did not return after its context ended (shutdown hung on open streams)")
	}
}

func connectHTTP(t *testing.T, ctx context.Context, endpoint, pin string) *client {
	t.Helper()
	tr := &http.Transport{}
	mc, c := newClient(t)
	cs, err := mc.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: bearer{testToken, tr}},
		MaxRetries: -1, // the server going away ends the session at once
	}, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		t.Fatalf("connect %s (protocol %q): %v", endpoint, pin, err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		tr.CloseIdleConnections()
	})
	c.cs = cs
	c.awaitListening(ctx)
	return c
}

// testToken is the gateway's token in these tests.
const testToken = "test-token-of-the-gateway-tests-32+bytes"

// bearer adds "Authorization: Bearer token" to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Over stdio the session ends when the client closes its end (the
// editor quit): ServeStdio returns nil.
func TestGateway_StdioEndsAtEOF(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	h := startGateway(t, &fakeSource{tools: []messages.Tool{tool("alpha", "echo", "Echoes.")}})
	inR, inW := io.Pipe()   // client → gateway
	outR, outW := io.Pipe() // gateway → client
	served := make(chan error, 1)
	go func() {
		served <- h.gw.ServeStdio(ctx, inR, outW)
		_ = outW.Close()
	}()
	cl, c := newClient(t)
	cs, err := cl.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.cs = cs
	c.awaitListening(ctx)
	c.waitTools(ctx, "alpha__echo")
	h.toolsChanged("alpha")
	c.expectChange(ctx)

	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("ServeStdio = %v, want nil at EOF", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeStdio did not return at EOF")
	}
}

// Cancelling the context (SIGINT, SIGTERM) ends a stdio session too.
func TestGateway_StdioEndsOnCancel(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	h := startGateway(t, &fakeSource{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	serveCtx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() {
		served <- h.gw.ServeStdio(serveCtx, inR, outW)
		_ = outW.Close()
	}()
	cl, _ := newClient(t)
	cs, err := cl.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("ServeStdio = %v, want nil on cancel", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeStdio did not return on cancel")
	}
	_ = cs.Close()
}

// Shutting down right after clients connected must not hang either: a
// default client's subscriptions/listen may still be on its way in.
func TestGateway_HTTPShutdownRightAfterConnect(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	h := startGateway(t, &fakeSource{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stopServing := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- h.gw.ServeListener(serveCtx, ln, gateway.HTTPOptions{Token: testToken}) }()
	endpoint := "http://" + ln.Addr().String() + gateway.Path
	for _, p := range protocols {
		connectHTTP(t, ctx, endpoint, p.pin)
	}
	stopServing()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("ServeListener: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeListener did not return after its context ended")
	}
}
