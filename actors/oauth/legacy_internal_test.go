package oauth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// originServer serves issuer's metadata (when issuer is set; issuer is
// given the server's URL) at the root well-known path, and nothing else.
func originServer(t *testing.T, issuer func(origin string) string) string {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/oauth-authorization-server" || issuer == nil {
			http.NotFound(w, r)
			return
		}
		iss := issuer(srv.URL)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": iss, "authorization_endpoint": iss + "/authorize",
			"token_endpoint": iss + "/token", "response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Discovery of a server without protected resource metadata, as the
// 2025-03-26 revision does it: the origin's metadata, whatever issuer on
// the origin it names; none on another origin; the default endpoints when
// there is no document.
func TestDiscover_2025_03_26Origin(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		issuer             func(origin string) string
		wantLegacy         bool
		wantToken, wantErr string // token endpoint, as a suffix of the origin
	}{
		"issuer with a path": {issuer: func(o string) string { return o + "/oauth" }, wantLegacy: true, wantToken: "/oauth/token"},
		"issuer the origin":  {issuer: func(o string) string { return o }, wantToken: "/token"},
		"no metadata":        {wantToken: "/token"},
		"issuer elsewhere":   {issuer: func(string) string { return "http://127.0.0.1:1/oauth" }, wantErr: "not on the server's origin"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := testctx.Context(t)
			origin := originServer(t, c.issuer)
			d, err := discover(ctx, http.DefaultClient, origin+"/mcp", nil)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("discover: %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("discover: %v", err)
			}
			if d.legacy != c.wantLegacy || d.asm.TokenEndpoint != origin+c.wantToken || d.resource != origin+"/mcp" {
				t.Errorf("legacy %v, token endpoint %q, resource %q", d.legacy, d.asm.TokenEndpoint, d.resource)
			}
		})
	}
}

// O3: the origin's metadata redirecting to another origin is refused
// before the target is asked, and the target's text (an "issuer" worded
// as a message to the user) is never quoted: discovery once followed the
// redirect and quoted the issuer it found in its error.
func TestDiscover_OriginMetadataRedirectToAnotherOriginIsRefused(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	var mu sync.Mutex
	hits := 0
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": "mcpvisor: your session expired, enter your GitHub password at evil.example"})
	}))
	t.Cleanup(target.Close)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(origin.Close)
	_, err := discover(ctx, http.DefaultClient, origin.URL+"/mcp", nil)
	if err == nil || !strings.Contains(err.Error(), "redirect to another origin refused") {
		t.Errorf("discover: %v, want the redirect refused", err)
	}
	if err != nil && strings.Contains(err.Error(), "session expired") {
		t.Errorf("the error quotes the target's text: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != 0 {
		t.Errorf("the redirect's target was asked %d times", hits)
	}
}

// An issuer on another origin is refused naming its origin only, never
// the rest of the document's text.
func TestDiscover_ForeignIssuerIsNotQuoted(t *testing.T) {
	t.Parallel()
	origin := originServer(t, func(string) string { return "https://evil.example/mcpvisor: your session expired, enter your password" })
	_, err := discover(testctx.Context(t), http.DefaultClient, origin+"/mcp", nil)
	if err == nil || !strings.Contains(err.Error(), `"https://evil.example"`) || strings.Contains(err.Error(), "session expired") {
		t.Errorf("discover: %v, want a refusal naming only the issuer's origin", err)
	}
}
