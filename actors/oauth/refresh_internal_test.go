package oauth

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/messages"
)

// O4: a refresh request carries the resource the token is bound to
// (RFC 8707; the MCP specification has every token request include it),
// and the new token's expiry counts on the handler's clock.
func TestHandler_RefreshSendsTheResource(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var form url.Values
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		mu.Lock()
		form = r.PostForm
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"new-access","token_type":"Bearer","expires_in":600,"refresh_token":"new-refresh"}`))
	}))
	t.Cleanup(as.Close)
	clock := quartz.NewMock(t)
	store := Store{Dir: t.TempDir()}
	rec := &Record{Server: "remote", Resource: "https://mcp.example/mcp", BoundTo: "https://mcp.example/", TokenURL: as.URL + "/token",
		ClientID: "cli", AccessToken: "old-access", RefreshToken: "old-refresh", Expiry: clock.Now().Add(30 * time.Second)}
	if err := store.Save(rec); err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Server: "remote", URL: rec.Resource, Store: store, Clock: clock, Client: as.Client()})
	tok, err := h.Token()
	if err != nil || tok == nil || tok.AccessToken != "new-access" {
		t.Fatalf("token %v, %v: want the refreshed one", tok, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if form.Get("grant_type") != "refresh_token" || form.Get("refresh_token") != "old-refresh" || form.Get("resource") != "https://mcp.example/" {
		t.Errorf("refresh form %v: want grant_type refresh_token, the refresh token and resource https://mcp.example/", form)
	}
	if form.Has("scope") {
		t.Errorf("refresh form %v asks for a scope", form)
	}
	stored, err := store.Load("remote", rec.Resource)
	if err != nil || stored.RefreshToken != "new-refresh" || !stored.Expiry.Equal(clock.Now().Add(600*time.Second)) {
		t.Errorf("stored %+v, %v: want the new pair, expiring 600s from now on the clock", stored.Summary(), err)
	}
}

// A stored token whose authorization server is not the one the config
// names (a login made before oauth.issuer was set) is not refreshed
// there: the refresh, and the client secret with it, is not sent.
func TestHandler_RefreshGoesOnlyToTheConfiguredAuthorizationServer(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(other.Close)
	clock := quartz.NewMock(t)
	store := Store{Dir: t.TempDir()}
	rec := &Record{Server: "remote", Resource: "https://mcp.example/mcp", Issuer: other.URL, TokenURL: other.URL + "/token",
		ClientID: "cli", ClientSecret: "configured-secret", AccessToken: "old-access", RefreshToken: "old-refresh",
		Expiry: clock.Now().Add(30 * time.Second)}
	if err := store.Save(rec); err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Server: "remote", URL: rec.Resource, Store: store, Clock: clock, Client: other.Client(),
		Spec: &messages.OAuthSpec{ClientID: "cli", ClientSecret: "configured-secret", Issuer: "https://auth.example.com"}})
	if tok, err := h.Token(); tok != nil || err != nil {
		t.Errorf("token %v, %v: want none (the request then goes out bare)", tok, err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the authorization server the config does not name was sent %d requests", n)
	}
}
