package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
)

// codeServer is an authorization server for the authorization-code grant:
// dynamic registration, PKCE S256 and the resource parameter checked,
// the exact registered redirect URI required (as a strict server does,
// beyond RFC 8252's loopback port variance), the client checked at the
// token endpoint. An authorize request with as_user=attacker is one the
// attacker makes logged in as themself: its code is "attacker-code",
// which buys the attacker's tokens.
type codeServer struct {
	srv           *httptest.Server
	mu            sync.Mutex
	pending       map[string]url.Values // code -> the authorize request
	resource      string
	clients       map[string]string // client_id -> its registered redirect URI
	registrations int
	exchanged     []string // the codes presented at the token endpoint
	// refuseAtAuthorize: an unknown client is refused by an error
	// redirect (error=invalid_client) instead of at the token endpoint.
	refuseAtAuthorize bool
	// onExchange, when set, runs as a code is exchanged.
	onExchange func()
}

func newCodeServer(t *testing.T) *codeServer {
	c := &codeServer{pending: map[string]url.Values{}, clients: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, c.metadata(""))
	})
	c.routes(mux, "")
	c.srv = httptest.NewServer(mux)
	t.Cleanup(c.srv.Close)
	return c
}

// metadata is the RFC 8414 document of the server whose endpoints are
// under prefix; the issuer is the URL of the prefix.
func (c *codeServer) metadata(prefix string) map[string]any {
	base := c.srv.URL + prefix
	return map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize",
		"token_endpoint": base + "/token", "registration_endpoint": base + "/register",
		"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}}
}

// forget makes the server forget every client registered with it.
func (c *codeServer) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.clients)
}

// counts are the registrations made and the codes exchanged so far.
func (c *codeServer) counts() (registrations int, exchanged []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.registrations, slices.Clone(c.exchanged)
}

// routes serves the registration, authorization and token endpoints
// under prefix.
func (c *codeServer) routes(mux *http.ServeMux, prefix string) {
	mux.HandleFunc(prefix+"/register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		c.mu.Lock()
		c.registrations++
		id := "registered-client"
		if c.registrations > 1 {
			id = fmt.Sprintf("registered-client-%d", c.registrations)
		}
		if uris, _ := m["redirect_uris"].([]any); len(uris) == 1 {
			c.clients[id], _ = uris[0].(string)
		}
		c.mu.Unlock()
		m["client_id"] = id
		writeJSON(w, 201, m)
	})
	mux.HandleFunc(prefix+"/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("resource") == "" {
			http.Error(w, "PKCE S256 and resource required", 400)
			return
		}
		c.mu.Lock()
		registered, known := c.clients[q.Get("client_id")]
		code := "code-1"
		if q.Get("as_user") == "attacker" {
			code = "attacker-code"
		}
		c.pending[code] = q
		c.mu.Unlock()
		if known && registered != q.Get("redirect_uri") {
			http.Error(w, "redirect_uri is not the one registered", 400)
			return
		}
		if !known && c.refuseAtAuthorize {
			http.Redirect(w, r, q.Get("redirect_uri")+"?error=invalid_client&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
			return
		}
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc(prefix+"/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		code := r.PostForm.Get("code")
		if c.onExchange != nil {
			c.onExchange()
		}
		c.mu.Lock()
		c.exchanged = append(c.exchanged, code)
		q := c.pending[code]
		_, known := c.clients[r.PostForm.Get("client_id")]
		c.mu.Unlock()
		if !known {
			writeJSON(w, 401, map[string]any{"error": "invalid_client"})
			return
		}
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if q == nil || base64.RawURLEncoding.EncodeToString(sum[:]) != q.Get("code_challenge") || r.PostForm.Get("resource") != q.Get("resource") {
			writeJSON(w, 400, map[string]any{"error": "invalid_grant"})
			return
		}
		c.mu.Lock()
		c.resource = q.Get("resource")
		c.mu.Unlock()
		access := "login-access-zq"
		if code == "attacker-code" {
			access = "attacker-access-zq"
		}
		writeJSON(w, 200, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 600,
			"refresh_token": "login-refresh-zq", "scope": "tools"})
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// protected serves an MCP server accepting "login-access-zq", and the
// attacker's token: the attacker has an account there too. Its metadata
// names the authorization servers as, in that order.
func protected(t *testing.T, as ...string) string {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if tok != "login-access-zq" && tok != "attacker-access-zq" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	m := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m }, &mcp.StreamableHTTPOptions{Stateless: true})
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: srv.URL + "/.well-known/oauth-protected-resource/mcp"})(h))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: srv.URL + "/mcp", AuthorizationServers: as, ScopesSupported: []string{"tools"}}))
	return srv.URL + "/mcp"
}

// Login discovers, registers, runs PKCE through the loopback redirect and
// stores the token bound to the resource, in a file only the user reads.
func TestLogin_AuthorizationCodeThroughTheLoopbackRedirect(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newCodeServer(t)
	u := protected(t, as.srv.URL)
	dir := t.TempDir()
	var opened string
	rec, err := oauth.Login(ctx, oauth.LoginOptions{
		Spec:  messages.ServerSpec{Name: "remote", Transport: messages.TransportHTTP, URL: u},
		Store: oauth.Store{Dir: dir},
		Open: func(authURL string) error {
			opened = authURL
			resp, err := http.Get(authURL) // the "browser" follows the redirect to the loopback listener
			if err != nil {
				return err
			}
			resp.Body.Close()
			return nil
		},
	})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if !strings.Contains(opened, "code_challenge_method=S256") || !strings.Contains(opened, "redirect_uri=http%3A%2F%2F127.0.0.1%3A") {
		t.Errorf("authorization URL %s lacks PKCE or the loopback redirect", opened)
	}
	if as.resource != u {
		t.Errorf("token bound to %q, want %q", as.resource, u)
	}
	if rec.ClientID != "registered-client" || rec.RefreshToken != "login-refresh-zq" {
		t.Errorf("record %+v", rec.Summary())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %v", files)
	}
	if info, _ := os.Stat(files[0]); info.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", info.Mode().Perm())
	}
	loaded, err := oauth.Store{Dir: dir}.Load("remote", u)
	if err != nil || loaded.AccessToken != "login-access-zq" {
		t.Errorf("load: %v", err)
	}
}

// legacyServer is a 2025-03-26 server: one origin serves the MCP endpoint
// (no protected resource metadata) and the authorization server, whose
// endpoints are under /oauth and whose metadata, at the root well-known
// path, names the issuer ".../oauth".
func legacyServer(t *testing.T) (*codeServer, string) {
	c := &codeServer{pending: map[string]url.Values{}, clients: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, c.metadata("/oauth"))
	})
	c.routes(mux, "/oauth")
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if tok != "login-access-zq" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	m := mcp.NewServer(&mcp.Implementation{Name: "legacy", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m }, &mcp.StreamableHTTPOptions{Stateless: true})
	mux.Handle("/mcp", auth.RequireBearerToken(verify, nil)(h))
	c.srv = httptest.NewServer(mux)
	t.Cleanup(c.srv.Close)
	return c, c.srv.URL + "/mcp"
}

// followRedirect is a browser that follows the authorization server's
// redirect to the loopback listener.
func followRedirect(authURL string) error {
	resp, err := http.Get(authURL)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// A 2025-03-26 server whose origin metadata names an issuer with a path
// (the go-sdk alone refuses the issuer mismatch) is logged in to with that
// document's endpoints.
func TestLogin_2025_03_26MetadataAtTheOriginNamingAnIssuerWithAPath(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as, u := legacyServer(t)
	rec, err := oauth.Login(ctx, oauth.LoginOptions{
		Spec:  messages.ServerSpec{Name: "legacy", Transport: messages.TransportHTTP, URL: u},
		Store: oauth.Store{Dir: t.TempDir()}, Open: followRedirect,
	})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if rec.TokenURL != as.srv.URL+"/oauth/token" || rec.Issuer != as.srv.URL+"/oauth" || rec.AccessToken != "login-access-zq" {
		t.Errorf("record: token URL %q, issuer %q", rec.TokenURL, rec.Issuer)
	}
}

// A login to an HTTP+SSE server (2024-11-05) runs the same flow, through
// the SSE transport with the handler in front of its requests; so does
// one to an http server that speaks only HTTP+SSE (as transport detection
// finds it), once the token is there.
func TestLogin_SSEServer(t *testing.T) {
	t.Parallel()
	for _, transport := range []messages.Transport{messages.TransportSSE, messages.TransportHTTP} {
		t.Run(string(transport), func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			as := newCodeServer(t)
			mux := http.NewServeMux()
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
				if tok != "login-access-zq" {
					return nil, auth.ErrInvalidToken
				}
				return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
			}
			m := mcp.NewServer(&mcp.Implementation{Name: "sse", Version: "1"}, nil)
			h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return m }, nil)
			mux.Handle("/sse", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: srv.URL + "/.well-known/oauth-protected-resource/sse"})(h))
			mux.Handle("/.well-known/oauth-protected-resource/sse", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
				Resource: srv.URL + "/sse", AuthorizationServers: []string{as.srv.URL}}))
			rec, err := oauth.Login(ctx, oauth.LoginOptions{
				Spec:  messages.ServerSpec{Name: "sse", Transport: transport, URL: srv.URL + "/sse"},
				Store: oauth.Store{Dir: t.TempDir()}, Open: followRedirect,
			})
			if err != nil {
				t.Fatalf("login: %v", err)
			}
			if rec.AccessToken != "login-access-zq" || as.resource != srv.URL+"/sse" {
				t.Errorf("record %+v, bound to %q", rec.Summary(), as.resource)
			}
		})
	}
}

// A server that refuses the connection once authorized, quoting the
// token in its error, does not get it into the login's error.
func TestLogin_ErrorAfterTheTokenNeverQuotesIt(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newCodeServer(t)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if tok == "" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]any{"jsonrpc": "2.0", "id": 1,
			"error": map[string]any{"code": -32600, "message": "token " + tok + " and login-refresh-zq refused"}})
	})
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: srv.URL + "/mcp", AuthorizationServers: []string{as.srv.URL}}))
	_, err := oauth.Login(ctx, oauth.LoginOptions{
		Spec:  messages.ServerSpec{Name: "rude", Transport: messages.TransportHTTP, URL: srv.URL + "/mcp"},
		Store: oauth.Store{Dir: t.TempDir()}, Open: followRedirect,
	})
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("login: %v, want the server's refusal", err)
	}
	if strings.Contains(err.Error(), "login-access-zq") || strings.Contains(err.Error(), "login-refresh-zq") {
		t.Errorf("login error %q quotes the token", err)
	}
}
