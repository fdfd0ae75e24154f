package actors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// authServer is an in-process OAuth authorization server on 127.0.0.1
// that issues opaque tokens, plus MCP servers it protects.
type authServer struct {
	t   *testing.T
	srv *httptest.Server

	mu          sync.Mutex
	n           int
	valid       map[string]bool // access tokens the MCP servers accept
	refresh     map[string]bool // refresh tokens it honours
	failRefresh bool
	grants      []string            // grant types asked for, in order
	seen        map[string][]string // MCP path -> access tokens it was sent
	requests    []string            // "METHOD /path" of every request to the authorization server
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, valid: map[string]bool{}, refresh: map[string]bool{}, seen: map[string][]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer": a.srv.URL, "authorization_endpoint": a.srv.URL + "/authorize", "token_endpoint": a.srv.URL + "/token",
			"response_types_supported":              []string{"code"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
		})
	})
	mux.HandleFunc("/token", a.token)
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.requests = append(a.requests, r.Method+" "+r.URL.Path)
		a.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// issue mints an access token (and a refresh token) valid at the MCP
// servers.
func (a *authServer) issue(w http.ResponseWriter) {
	a.n++
	at, rt := fmt.Sprintf("planted-access-%d-zq", a.n), fmt.Sprintf("planted-refresh-%d-zq", a.n)
	a.valid[at], a.refresh[rt] = true, true
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt})
}

func (a *authServer) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	a.mu.Lock()
	defer a.mu.Unlock()
	grant := r.PostForm.Get("grant_type")
	a.grants = append(a.grants, grant)
	switch grant {
	case "refresh_token":
		if a.failRefresh || !a.refresh[r.PostForm.Get("refresh_token")] {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "refresh token revoked"})
			return
		}
		a.issue(w)
	case "client_credentials":
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if id != "robot" || secret != "robot-secret-zq" {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
			return
		}
		a.issue(w)
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type"})
	}
}

// plant stores a token pair the authorization server honours, as a login
// would have left it.
func (a *authServer) plant(access, refresh string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.valid[access], a.refresh[refresh] = true, true
}

// revoke makes the MCP servers refuse an access token.
func (a *authServer) revoke(access string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.valid, access)
}

func (a *authServer) setFailRefresh(v bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.failRefresh = v
}

func (a *authServer) grantsAsked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.grants...)
}

// requestsSeen is every request the authorization server was sent.
func (a *authServer) requestsSeen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.requests...)
}

func (a *authServer) tokensSeen(path string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen[path]...)
}

// protect serves an MCP server with an echo tool at path, accepting only
// this authorization server's tokens, and returns its URL.
func (a *authServer) protect(path string) string {
	return a.protectWith(path, func(h http.Handler) http.Handler { return h })
}

// protectWith is protect with wrap around the MCP handler.
func (a *authServer) protectWith(path string, wrap func(http.Handler) http.Handler) string {
	mcpSrv := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcpSrv.AddTool(tool("echo", "echoes"), echoHandler)
	return a.protectServer(path, mcpSrv, wrap)
}

// protectServer serves mcpSrv at path as protectWith does.
func (a *authServer) protectServer(path string, mcpSrv *mcp.Server, wrap func(http.Handler) http.Handler) string {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpSrv }, &mcp.StreamableHTTPOptions{Stateless: true})
	return a.protectHandler(path, h, wrap)
}

// protectSSE serves an MCP server with an echo tool over the HTTP+SSE
// transport (2024-11-05) at path, every request (the GET of the event
// stream, each POST) needing a token, with wrap around the handler.
func (a *authServer) protectSSE(path string, wrap func(http.Handler) http.Handler) string {
	mcpSrv := mcp.NewServer(&mcp.Implementation{Name: "protected-sse", Version: "1"}, nil)
	mcpSrv.AddTool(tool("echo", "echoes"), echoHandler)
	return a.protectHandler(path, mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return mcpSrv }, nil), wrap)
}

// protectHandler serves h at path behind the bearer check, with its
// protected resource metadata.
func (a *authServer) protectHandler(path string, h http.Handler, wrap func(http.Handler) http.Handler) string {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	a.t.Cleanup(srv.Close)
	verify := func(_ context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.seen[r.URL.Path] = append(a.seen[r.URL.Path], token)
		if !a.valid[token] {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	prm := srv.URL + "/.well-known/oauth-protected-resource" + path
	mux.Handle(path, wrap(auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prm})(h)))
	mux.Handle("/.well-known/oauth-protected-resource"+path, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: srv.URL + path, AuthorizationServers: []string{a.srv.URL},
	}))
	return srv.URL + path
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// containsAny reports the first of secrets found in text.
func containsAny(text string, secrets ...string) string {
	for _, s := range secrets {
		if strings.Contains(text, s) {
			return s
		}
	}
	return ""
}

// protectStepUp is protect, except that every tools/call answers 403
// insufficient_scope for scope "write": a step-up only a login can give.
func (a *authServer) protectStepUp(path string) string {
	return a.protectWith(path, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"tools/call"`)) {
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="write"`)
				http.Error(w, "insufficient scope", http.StatusForbidden)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
		})
	})
}

// leakyServer has a tool "leak" that fails with an error quoting the
// Authorization header it was sent and the authorization server's newest
// refresh token: the worst a server can do with a token.
func (a *authServer) leakyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "leaky", Version: "1"}, nil)
	s.AddTool(tool("leak", "quotes the credentials"), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a.mu.Lock()
		refresh := fmt.Sprintf("planted-refresh-%d-zq", a.n)
		a.mu.Unlock()
		return nil, fmt.Errorf("refused %q (refresh token %s)", req.Extra.Header.Get("Authorization"), refresh)
	})
	return s
}
