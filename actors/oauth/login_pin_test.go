package oauth_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
)

// greedyServer is an authorization server that runs the whole flow for
// anyone and records every token request's client credentials.
type greedyServer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	secrets []string // the Basic password or client_secret of each token request
}

func newGreedyServer(t *testing.T) *greedyServer {
	g := &greedyServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"issuer": g.srv.URL, "authorization_endpoint": g.srv.URL + "/authorize",
			"token_endpoint": g.srv.URL + "/token", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		_, secret, _ := r.BasicAuth()
		g.mu.Lock()
		g.secrets = append(g.secrets, secret+r.PostForm.Get("client_secret"))
		g.mu.Unlock()
		writeJSON(w, 200, map[string]any{"access_token": "login-access-zq", "token_type": "Bearer", "expires_in": 600})
	})
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

func (g *greedyServer) secretsSeen() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.secrets...)
}

// O2, at login: a configured client secret goes only to the authorization
// server the config names or, named by none, the one the previous login
// recorded. A server whose metadata names another is refused before the
// browser opens, and that authorization server is sent nothing.
func TestLogin_ClientSecretGoesOnlyToThePinnedAuthorizationServer(t *testing.T) {
	t.Parallel()
	for name, byConfig := range map[string]bool{"config names the issuer": true, "previous login recorded it": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			legit, evil := newCodeServer(t), newGreedyServer(t)
			u := protected(t, evil.srv.URL)
			store := oauth.Store{Dir: t.TempDir()}
			spec := &messages.OAuthSpec{ClientID: "victim-client", ClientSecret: "victim-secret-zq"}
			if byConfig {
				spec.Issuer = legit.srv.URL
			} else if err := store.Save(&oauth.Record{Server: "remote", Resource: u, Issuer: legit.srv.URL,
				TokenURL: legit.srv.URL + "/token", ClientID: "victim-client"}); err != nil {
				t.Fatal(err)
			}
			opened := false
			_, err := oauth.Login(ctx, oauth.LoginOptions{
				Spec:  messages.ServerSpec{Name: "remote", Transport: messages.TransportHTTP, URL: u, OAuth: spec},
				Store: store,
				Open: func(authURL string) error {
					opened = true
					resp, err := http.Get(authURL)
					if err != nil {
						return err
					}
					resp.Body.Close()
					return nil
				},
			})
			if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), legit.srv.URL) {
				t.Errorf("login: %v, want it refused naming %s", err, legit.srv.URL)
			}
			if got := evil.secretsSeen(); len(got) != 0 {
				t.Errorf("the authorization server the server named was sent token requests with %q", got)
			}
			if opened {
				t.Error("the browser was opened for the authorization server the server named")
			}
		})
	}
}

// A server whose metadata lists several authorization servers, the
// pinned one not first, is logged in to with the pinned one, as the
// daemon chooses it: the client secret goes to it, and the one listed
// first is sent nothing.
func TestLogin_ThePinnedAuthorizationServerIsChosenAmongThoseListed(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	legit, other := newCodeServer(t), newGreedyServer(t)
	u := protected(t, other.srv.URL, legit.srv.URL)
	spec := &messages.OAuthSpec{ClientID: "victim-client", ClientSecret: "victim-secret-zq", Issuer: legit.srv.URL}
	rec, err := oauth.Login(ctx, oauth.LoginOptions{
		Spec:  messages.ServerSpec{Name: "remote", Transport: messages.TransportHTTP, URL: u, OAuth: spec},
		Store: oauth.Store{Dir: t.TempDir()},
		Open: func(authURL string) error {
			redirect, _ := redirectOf(t, authURL)
			legit.mu.Lock()
			legit.clients["victim-client"] = redirect // pre-registered
			legit.mu.Unlock()
			return followRedirect(authURL)
		},
	})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if rec.Issuer != legit.srv.URL || rec.TokenURL != legit.srv.URL+"/token" {
		t.Errorf("logged in with issuer %q, token URL %q; want the pinned %s", rec.Issuer, rec.TokenURL, legit.srv.URL)
	}
	if got := other.secretsSeen(); len(got) != 0 {
		t.Errorf("the authorization server listed first was sent token requests with %q", got)
	}
}

// Without a client secret the recorded authorization server only
// chooses: a server whose metadata no longer lists it is logged in to
// with the one it lists, as before the pin was consulted at login.
func TestLogin_WithoutASecretARecordedServerNoLongerListedIsReplaced(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	gone, now := newCodeServer(t), newCodeServer(t)
	u := protected(t, now.srv.URL)
	store := oauth.Store{Dir: t.TempDir()}
	if err := store.Save(&oauth.Record{Server: "remote", Resource: u, Issuer: gone.srv.URL,
		TokenURL: gone.srv.URL + "/token", ClientID: "registered-client"}); err != nil {
		t.Fatal(err)
	}
	rec, err := oauth.Login(ctx, oauth.LoginOptions{
		Spec:  messages.ServerSpec{Name: "remote", Transport: messages.TransportHTTP, URL: u},
		Store: store, Open: followRedirect,
	})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if rec.Issuer != now.srv.URL {
		t.Errorf("logged in with issuer %q, want the listed %s", rec.Issuer, now.srv.URL)
	}
}
