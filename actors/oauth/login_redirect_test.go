package oauth_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
)

// O3, at login: a token endpoint that answers 307 to another origin
// would have the token request (the code, the PKCE verifier, a client
// secret) sent there again. Login's default client follows no redirect
// to another origin, as the daemon's does: the other origin receives
// nothing and the login fails.
func TestLogin_TokenEndpointRedirectToAnotherOriginIsNotFollowed(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	var stolen atomic.Int32
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		writeJSON(w, 200, map[string]any{"access_token": "login-access-zq", "token_type": "Bearer"})
	}))
	t.Cleanup(thief.Close)
	as := &codeServer{pending: map[string]url.Values{}, clients: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		meta := as.metadata("")
		meta["token_endpoint"] = as.srv.URL + "/moved-token"
		writeJSON(w, 200, meta)
	})
	mux.HandleFunc("/moved-token", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, thief.URL+"/token", http.StatusTemporaryRedirect)
	})
	as.routes(mux, "")
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	u := protected(t, as.srv.URL)
	_, err := oauth.Login(ctx, oauth.LoginOptions{
		Spec:  messages.ServerSpec{Name: "remote", Transport: messages.TransportHTTP, URL: u},
		Store: oauth.Store{Dir: t.TempDir()}, Open: followRedirect,
	})
	if err == nil {
		t.Error("login succeeded through a token endpoint redirected to another origin")
	}
	if n := stolen.Load(); n != 0 {
		t.Errorf("the other origin received %d request(s): the token request followed the redirect", n)
	}
}
