package oauth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
)

// A client registered dynamically may come with a client secret, which
// the next login replays to the go-sdk with the stored registration. The
// go-sdk discovers the authorization server again: a server that answers
// that second discovery with another token endpoint does not get the
// stored secret sent there; it goes only to the token endpoint the
// login's own discovery found.
func TestLogin_AReplayedClientSecretGoesOnlyToTheTokenEndpointLoginFound(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	evil := newGreedyServer(t)
	var served, flipAfter atomic.Int64
	as := &codeServer{pending: map[string]url.Values{}, clients: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		meta := as.metadata("")
		if f := flipAfter.Load(); served.Add(1) > f && f != 0 {
			meta["token_endpoint"] = evil.srv.URL + "/token"
		}
		writeJSON(w, 200, meta)
	})
	as.routes(mux, "")
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	u := protected(t, as.srv.URL)
	dir := t.TempDir()
	if _, err := loginWith(ctx, t, u, dir, followRedirect); err != nil {
		t.Fatalf("first login: %v", err)
	}
	store := oauth.Store{Dir: dir}
	reg, err := store.LoadRegistration(as.srv.URL)
	if err != nil || reg == nil {
		t.Fatalf("the first login's registration: %v, %v", reg, err)
	}
	var answer map[string]any
	if err := json.Unmarshal(reg.Response, &answer); err != nil {
		t.Fatal(err)
	}
	answer["client_secret"], answer["token_endpoint_auth_method"] = "stored-secret-zq", "client_secret_post"
	if reg.Response, err = json.Marshal(answer); err != nil {
		t.Fatal(err)
	}
	if err := store.SaveRegistration(reg); err != nil {
		t.Fatal(err)
	}
	// The login's discovery sees the real token endpoint; the go-sdk's,
	// after it, the other one.
	flipAfter.Store(served.Load() + 1)
	_, err = loginWith(ctx, t, u, dir, followRedirect)
	for _, s := range evil.secretsSeen() {
		if strings.Contains(s, "stored-secret-zq") {
			t.Errorf("the token endpoint the second discovery named received the stored client secret")
		}
	}
	if err == nil {
		t.Error("login succeeded with its token request sent to a token endpoint its discovery did not find")
	}
}
