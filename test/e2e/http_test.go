package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// headerLog records the headers of every request an HTTP server got.
type headerLog struct {
	mu   sync.Mutex
	seen []http.Header
}

func (l *headerLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Header.Clone())
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (l *headerLog) all() []http.Header {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]http.Header(nil), l.seen...)
}

// mcpHTTPServer serves the example server's tools over streamable HTTP or
// SSE on 127.0.0.1.
func mcpHTTPServer(t *testing.T, sse bool, log *headerLog) *httptest.Server {
	srv := exampleserver.New(exampleserver.Options{Name: "http"})
	var h http.Handler
	if sse {
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	} else {
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	}
	ts := httptest.NewServer(log.wrap(h))
	t.Cleanup(func() { closeHTTPServer(ts, srv) })
	return ts
}

// closeHTTPServer stops a test server and ends the MCP sessions it still
// holds (a client that vanished never said goodbye).
func closeHTTPServer(ts *httptest.Server, srv *mcp.Server) {
	ts.CloseClientConnections()
	ts.Close()
	for ss := range srv.Sessions() {
		_ = ss.Close()
	}
}

func writeJSONConfig(t *testing.T, body string) string {
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Streamable HTTP and SSE sessions are built from the spec: configured
// headers reach the server on every request, tools are listed and calls
// answered.
func TestHTTP_TransportsCarryHeadersAndServeCalls(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, typ, path string
		sse             bool
	}{
		{name: "streamable", typ: "http", path: "/mcp"},
		{name: "sse", typ: "sse", path: "/sse", sse: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			var log headerLog
			ts := mcpHTTPServer(t, tt.sse, &log)
			cfg := writeJSONConfig(t, `{"mcpServers": {"remote": {"type": "`+tt.typ+`", "url": "`+ts.URL+tt.path+`",
				"headers": {"Authorization": "Bearer tok-1234567", "X-Tenant": "acme"}}}}`)
			sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true})
			rec := actorstest.Record(t, sup)
			rec.WaitState(ctx, 0, "remote", messages.StateReady)
			res, err := sup.CallTool(ctx, "remote__add", map[string]any{"a": 40, "b": 2})
			if err != nil || testkit.Text(res) != "42" {
				t.Fatalf("remote__add = %v, %v", res, err)
			}
			reqs := log.all()
			if len(reqs) == 0 {
				t.Fatal("the server saw no request")
			}
			for i, h := range reqs {
				if h.Get("Authorization") != "Bearer tok-1234567" || h.Get("X-Tenant") != "acme" {
					t.Fatalf("request %d lacks the configured headers: %v", i, h)
				}
			}
		})
	}
}

// Configured headers go only to the server's own origin: a redirect to
// another origin is refused, and the other origin never sees a request.
func TestHTTP_CrossOriginRedirectIsRefused(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	var elsewhere headerLog
	other := mcpHTTPServer(t, false, &elsewhere)
	redirect := httptest.NewServer(http.RedirectHandler(other.URL+"/mcp", http.StatusTemporaryRedirect))
	t.Cleanup(redirect.Close)
	cfg := writeJSONConfig(t, `{"mcpServers": {"remote": {"type": "http", "url": "`+redirect.URL+`/mcp",
		"headers": {"Authorization": "Bearer tok-1234567"}}}}`)
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff})
	rec := actorstest.Record(t, sup)
	_, failed := rec.WaitState(ctx, 0, "remote", messages.StateFailed)
	if !strings.Contains(failed.Error, "redirect to another origin refused") {
		t.Fatalf("error = %q, want the refused redirect named", failed.Error)
	}
	if strings.Contains(failed.Error, "tok-1234567") {
		t.Fatalf("error leaks the token: %q", failed.Error)
	}
	if n := len(elsewhere.all()); n != 0 {
		t.Fatalf("the other origin got %d requests", n)
	}
}

// An SSE server whose endpoint event names another origin: the session
// refuses to post there (tool arguments would go to it), the server is
// failed with an error that says so, and the other origin never sees a
// request.
func TestHTTP_SSEEndpointOnAnotherOriginIsRefused(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	var elsewhere headerLog
	other := mcpHTTPServer(t, true, &elsewhere)
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s/sse?sessionid=stolen\n\n", other.URL)
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(func() {
		hostile.CloseClientConnections()
		hostile.Close()
	})
	cfg := writeJSONConfig(t, `{"mcpServers": {"remote": {"type": "sse", "url": "`+hostile.URL+`/sse",
		"headers": {"Authorization": "Bearer tok-1234567"}}}}`)
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff})
	rec := actorstest.Record(t, sup)
	_, failed := rec.WaitState(ctx, 0, "remote", messages.StateFailed)
	if !strings.Contains(failed.Error, "SSE endpoint event points at another origin: refused") {
		t.Fatalf("error = %q, want the refused endpoint named", failed.Error)
	}
	if n := len(elsewhere.all()); n != 0 {
		t.Fatalf("the other origin got %d requests", n)
	}
}

// A streamable HTTP session whose server goes away is a ServerFailed.
func TestHTTP_LostServerIsNoticed(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	var log headerLog
	srv := exampleserver.New(exampleserver.Options{Name: "http"})
	ts := httptest.NewServer(log.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{})))
	t.Cleanup(func() { closeHTTPServer(ts, srv) })
	cfg := writeJSONConfig(t, `{"mcpServers": {"remote": {"type": "http", "url": "`+ts.URL+`/mcp"}}}`)
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff, ProbeInterval: 200 * time.Millisecond, ProbeTimeout: 100 * time.Millisecond})
	rec := actorstest.Record(t, sup)
	rec.WaitState(ctx, 0, "remote", messages.StateReady)
	mark := rec.Len()
	closeHTTPServer(ts, srv)
	_, failed := rec.WaitState(ctx, mark, "remote", messages.StateFailed)
	if failed.Error == "" {
		t.Fatal("failure without a reason")
	}
	if _, err := sup.CallTool(ctx, "remote__echo", map[string]any{"message": "x"}); err == nil {
		t.Fatal("a call to the lost server succeeded")
	}
}

// The health probe keeps a healthy session ready, on either protocol: a
// stateless server negotiates 2026-07-28, a stateful one falls back to
// 2025-11-25, and each must answer the probe.
func TestHTTP_HealthProbeKeepsHealthySessionsReady(t *testing.T) {
	t.Parallel()
	for _, stateless := range []bool{true, false} {
		t.Run(map[bool]string{true: "stateless", false: "stateful"}[stateless], func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			srv := exampleserver.New(exampleserver.Options{Name: "http"})
			requests := make(chan struct{}, 1024)
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: stateless})
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case requests <- struct{}{}:
				default:
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(func() { closeHTTPServer(ts, srv) })
			cfg := writeJSONConfig(t, `{"mcpServers": {"remote": {"type": "http", "url": "`+ts.URL+`/mcp"}}}`)
			sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff,
				ProbeInterval: 20 * time.Millisecond, ProbeTimeout: 2 * time.Second, ProbeFailures: 1})
			rec := actorstest.Record(t, sup)
			rec.WaitState(ctx, 0, "remote", messages.StateReady)
			mark := rec.Len()
			for len(requests) > 0 { // drop the connect's requests
				<-requests
			}
			for range 5 { // five more requests: the probes
				select {
				case <-requests:
				case <-ctx.Done():
					t.Fatal("no probe reached the server")
				}
			}
			if _, _, err := sup.Resync(ctx, true); err != nil { // barrier through the fleet actor
				t.Fatal(err)
			}
			if got := rec.StateChanges(mark, "remote"); len(got) != 0 {
				t.Fatalf("a healthy session changed state under probing: %v\n%s", got, rec.Dump())
			}
		})
	}
}
