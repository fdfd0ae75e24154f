package oauth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// metadataServer serves protected resource metadata on loopback,
// counting the requests it gets.
func metadataServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://as.example.com"]}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// The daemon's OAuth client once dialled through a clone of
// http.DefaultTransport, whose DialContext turns off the go-sdk's guard
// against non-public addresses in its discovery. NewClient's dial guard
// is in force through the go-sdk's discovery: a host only metadata names
// is not dialled on a non-public address, nor on loopback unless the
// server itself is on loopback; a host the config names is.
func TestNewClient_DiscoveryKeepsTheAddressGuard(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	meta, hits := metadataServer(t)
	metaURL := strings.Replace(meta.URL, "127.0.0.1", "localhost", 1) + "/.well-known/oauth-protected-resource"
	fetch := func(serverURL string, spec *messages.OAuthSpec) error {
		client, tr := NewClient(nil, serverURL, spec)
		defer tr.CloseIdleConnections()
		_, err := oauthex.GetProtectedResourceMetadata(ctx, metaURL, "https://mcp.example.com/mcp", client)
		return err
	}
	if err := fetch("https://mcp.example.com/mcp", nil); err == nil || !strings.Contains(err.Error(), "is not a public address") {
		t.Errorf("a loopback host named only by metadata, for a server that is not on loopback: %v, want it refused", err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the refused host was sent %d requests", n)
	}
	if err := fetch("http://127.0.0.1:1/mcp", nil); err != nil {
		t.Errorf("a loopback host, for a server on loopback: %v, want it reached", err)
	}
	named := &messages.OAuthSpec{Issuer: strings.TrimSuffix(metaURL, "/.well-known/oauth-protected-resource")}
	if err := fetch("https://mcp.example.com/mcp", named); err != nil {
		t.Errorf("a host the config names: %v, want it reached", err)
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("the allowed fetches made %d requests, want 2", n)
	}
	// The addresses the go-sdk refuses are refused at the dial, before any
	// packet leaves: private, link-local (cloud metadata), CGNAT.
	client, tr := NewClient(nil, "http://127.0.0.1:1/mcp", nil)
	defer tr.CloseIdleConnections()
	for _, addr := range []string{"10.1.2.3", "169.254.169.254", "100.64.0.1", "[fd00::1]"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+":9/", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "is not a public address") {
			t.Errorf("%s: %v, want it refused", addr, err)
		}
	}
}
