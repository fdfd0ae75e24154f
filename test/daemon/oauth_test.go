package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// oauthRig is an authorization server on 127.0.0.1 (dynamic registration,
// an authorize endpoint that redirects at once, the token endpoint for
// the authorization-code, refresh and client-credentials grants) and MCP
// servers it protects. Every token it issues has a recognisable prefix,
// so that the scan below finds any that leaks.
type oauthRig struct {
	as      *httptest.Server
	mu      sync.Mutex
	n       int
	good    map[string]bool
	revoked []string
}

const tokenPrefix = "PLANTED-OAUTH-TOKEN-"

func newOAuthRig(t *testing.T) *oauthRig {
	r := &oauthRig{good: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]any{"issuer": r.as.URL, "authorization_endpoint": r.as.URL + "/authorize",
			"token_endpoint": r.as.URL + "/token", "registration_endpoint": r.as.URL + "/register",
			"revocation_endpoint":      r.as.URL + "/revoke",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/revoke", func(w http.ResponseWriter, req *http.Request) {
		_ = req.ParseForm()
		r.mu.Lock()
		r.revoked = append(r.revoked, req.PostForm.Get("token"))
		delete(r.good, req.PostForm.Get("token"))
		r.mu.Unlock()
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, req *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(req.Body).Decode(&m)
		m["client_id"] = "registered"
		writeJSON(w, 201, m)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, req *http.Request) {
		q := req.URL.Query()
		http.Redirect(w, req, q.Get("redirect_uri")+"?code=the-code&state="+q.Get("state"), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, req *http.Request) {
		_ = req.ParseForm()
		switch req.PostForm.Get("grant_type") {
		case "authorization_code", "refresh_token":
		case "client_credentials":
			if id, secret, _ := req.BasicAuth(); id != "robot" || secret != "PLANTED-CLIENT-SECRET-k2" {
				writeJSON(w, 401, map[string]any{"error": "invalid_client"})
				return
			}
		default:
			writeJSON(w, 400, map[string]any{"error": "unsupported_grant_type"})
			return
		}
		r.mu.Lock()
		r.n++
		at, rt := fmt.Sprintf("%saccess-%d", tokenPrefix, r.n), fmt.Sprintf("%srefresh-%d", tokenPrefix, r.n)
		r.good[at] = true
		r.mu.Unlock()
		writeJSON(w, 200, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt})
	})
	r.as = httptest.NewServer(mux)
	t.Cleanup(r.as.Close)
	return r
}

// protect serves an MCP server with one tool, hello, that only this
// rig's tokens reach.
func (r *oauthRig) protect(t *testing.T) string {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	m := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcp.AddTool(m, &mcp.Tool{Name: "hello"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m }, &mcp.StreamableHTTPOptions{Stateless: true})
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !r.good[tok] {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: srv.URL + "/.well-known/oauth-protected-resource/mcp"})(h))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: srv.URL + "/mcp", AuthorizationServers: []string{r.as.URL}}))
	return srv.URL + "/mcp"
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// pidOf is a server's PID in `status --json`.
func pidOf(t *testing.T, statusJSON, name string) int {
	t.Helper()
	var st struct {
		Servers []struct {
			Name string `json:"name"`
			PID  int    `json:"pid"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(statusJSON), &st); err != nil {
		t.Fatalf("status: %v\n%s", err, statusJSON)
	}
	for _, s := range st.Servers {
		if s.Name == name {
			return s.PID
		}
	}
	t.Fatalf("no %s in status", name)
	return 0
}

// A server that needs a login waits in needs-auth, saying what to run;
// `mcpvisor auth login` (its browser following the redirect) stores a
// token and the daemon connects the server while the others keep serving
// (same PIDs); a client-credentials server needs nobody; no token or
// client secret appears in anything the daemon or the CLI says.
func TestDaemon_OAuthLoginWhileOthersServe(t *testing.T) {
	t.Parallel()
	ctx := actorstest.ContextTimeout(t, daemonTimeout)
	rig := newOAuthRig(t)
	state := t.TempDir()
	tmp := t.TempDir()
	browser := filepath.Join(tmp, "browser.sh")
	// The browser is given a private page that redirects to the
	// authorization URL (never the URL itself: see auth_browser.go).
	script := "#!/bin/sh\n" +
		"url=$(sed -n 's/.*http-equiv=\"refresh\" content=\"0;url=\\([^\"]*\\)\".*/\\1/p' \"$1\" | sed 's/&amp;/\\&/g')\n" +
		"exec curl -sS -L -o /dev/null --max-time 30 \"$url\"\n"
	if err := os.WriteFile(browser, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(tmp, ".mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"alpha":  map[string]any{"command": bin, "args": []string{"example-server", "--name", "alpha"}},
		"linear": map[string]any{"url": rig.protect(t)},
		"robot": map[string]any{"url": rig.protect(t), "oauth": map[string]any{
			"grant": "client_credentials", "clientId": "robot", "clientSecret": "${ROBOT_SECRET}"}},
	}})
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	apiToken := filepath.Join(tmp, "token")
	if err := os.WriteFile(apiToken, []byte("api-token-for-the-oauth-test-32+bytes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	common := []string{"XDG_STATE_HOME=" + state, "ROBOT_SECRET=PLANTED-CLIENT-SECRET-k2"}
	d, addr := daemon(ctx, t, common, cfg, "--log-level", "debug", "--log-format", "json", "--token-file", apiToken)
	env := append(common, "MCPVISOR_ADDR="+addr, "MCPVISOR_TOKEN=api-token-for-the-oauth-test-32+bytes", "BROWSER="+browser)
	events := start(t, env, "events", "--since", "0", "--json")
	events.waitStates(ctx, map[string]string{"alpha": "ready", "linear": "needs-auth", "robot": "ready"})

	seen := map[string]string{}
	before := run(ctx, t, env, "status", "--json").ok(t)
	seen["status before"] = before.stdout
	if !strings.Contains(before.stdout, "mcpvisor auth login linear") {
		t.Fatalf("status does not say what to run:\n%s", before.stdout)
	}
	authBefore := run(ctx, t, env, "auth", "status").ok(t)
	seen["auth status before"] = authBefore.stdout + authBefore.stderr
	if !regexp.MustCompile(`(?m)^linear\s+needs-auth\s`).MatchString(authBefore.stdout) {
		t.Errorf("auth status does not show linear needing a login:\n%s", authBefore.stdout)
	}
	login := run(ctx, t, env, "auth", "login", "linear", "--config", cfg).ok(t)
	seen["auth login"] = login.stdout + login.stderr
	events.waitStates(ctx, map[string]string{"linear": "ready"})
	after := run(ctx, t, env, "status", "--json").ok(t)
	seen["status after"] = after.stdout
	if pidOf(t, before.stdout, "alpha") == 0 || pidOf(t, after.stdout, "alpha") != pidOf(t, before.stdout, "alpha") {
		t.Errorf("alpha was restarted by the login: pid %d, then %d", pidOf(t, before.stdout, "alpha"), pidOf(t, after.stdout, "alpha"))
	}
	call := run(ctx, t, env, "call", "linear__hello").ok(t)
	seen["call"] = call.stdout + call.stderr
	for _, args := range [][]string{{"auth", "status"}, {"auth", "status", "--json"}, {"status"}, {"tools", "--json"}, {"check", cfg}} {
		r := run(ctx, t, env, args...)
		seen[strings.Join(args, " ")] = r.stdout + r.stderr
	}
	if !strings.Contains(seen["auth status"], "linear") || !strings.Contains(seen["auth status"], "robot") {
		t.Errorf("auth status lists no linear and robot:\n%s", seen["auth status"])
	}
	seen["GET /metrics"] = get(t, "http://"+addr+"/metrics", "api-token-for-the-oauth-test-32+bytes", false)
	if !strings.Contains(seen["GET /metrics"], `state="needs-auth"`) {
		t.Errorf("metrics have no needs-auth series")
	}
	logout := run(ctx, t, env, "auth", "logout", "linear").ok(t)
	if !strings.Contains(logout.stdout, "forgot 1 token") {
		t.Errorf("logout: %s", logout.stdout)
	}
	rig.mu.Lock()
	revoked := len(rig.revoked)
	rig.mu.Unlock()
	if revoked != 2 { // the refresh token, then the access token
		t.Errorf("logout revoked %d tokens, want 2", revoked)
	}
	if code := d.interrupt(ctx); code != 0 {
		t.Fatalf("run exit %d\nstderr:\n%s", code, d.stderr.String())
	}
	events.exitCode(ctx)
	seen["daemon stdout"] = d.stdout.String()
	seen["daemon stderr (debug logs)"] = d.stderr.String()
	seen["events"] = events.stdout.String() + events.stderr.String()
	for where, text := range seen {
		for _, secret := range []string{tokenPrefix, "PLANTED-CLIENT-SECRET-k2"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s appears in %s:\n%s", secret, where, excerpt(text, secret))
			}
		}
	}
}
