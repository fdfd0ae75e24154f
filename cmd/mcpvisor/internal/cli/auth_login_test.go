package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
)

// loginServer is an authorization server that redirects at once and
// issues "cli-access" for any code, and the MCP server it protects. It
// remembers the state and PKCE challenge of every authorize request.
type loginServer struct {
	as, mcp *httptest.Server
	mu      sync.Mutex
	secrets []string // states and challenges sent to /authorize
}

func newLoginServer(t *testing.T) *loginServer {
	s := &loginServer{}
	mux := http.NewServeMux()
	s.as = httptest.NewServer(mux)
	t.Cleanup(s.as.Close)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		answerJSON(w, 200, map[string]any{"issuer": s.as.URL, "authorization_endpoint": s.as.URL + "/authorize",
			"token_endpoint": s.as.URL + "/token", "registration_endpoint": s.as.URL + "/register",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		m["client_id"] = "cli-client"
		answerJSON(w, 201, m)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		s.mu.Lock()
		s.secrets = append(s.secrets, q.Get("state"), q.Get("code_challenge"))
		s.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c&state="+q.Get("state"), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, _ *http.Request) {
		answerJSON(w, 200, map[string]any{"access_token": "cli-access", "token_type": "Bearer", "expires_in": 600})
	})
	pmux := http.NewServeMux()
	s.mcp = httptest.NewServer(pmux)
	t.Cleanup(s.mcp.Close)
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if tok != "cli-access" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	m := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m }, &mcp.StreamableHTTPOptions{Stateless: true})
	pmux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: s.mcp.URL + "/.well-known/oauth-protected-resource/mcp"})(h))
	pmux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: s.mcp.URL + "/mcp", AuthorizationServers: []string{s.as.URL}}))
	return s
}

func answerJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// recordingBrowser is a $BROWSER that writes its command line, one
// argument a line, and the modes of the file it was given and of that
// file's directory, to files in rec; then it follows the page's redirect
// (or, given a URL, the URL) with curl.
func recordingBrowser(t *testing.T, rec string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "browser.sh")
	body := "#!/bin/sh\n" +
		"printf '%s\\n' \"$0\" \"$@\" > '" + rec + "/argv'\n" +
		"if [ -f \"$1\" ]; then\n" +
		"  stat -c '%a' \"$1\" \"$(dirname \"$1\")\" > '" + rec + "/modes'\n" +
		"  url=$(sed -n 's/.*http-equiv=\"refresh\" content=\"0;url=\\([^\"]*\\)\".*/\\1/p' \"$1\" | sed 's/&amp;/\\&/g')\n" +
		"else\n  url=\"$1\"\nfi\n" +
		"exec curl -sS -L -o /dev/null --max-time 30 \"$url\"\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return script
}

// O1: `auth login` used to pass the authorization URL, with the login's
// state and PKCE challenge, on the browser's command line, which every
// local user reads in /proc/PID/cmdline. The browser now gets the path
// of a private page (0600 in a 0700 directory under XDG_RUNTIME_DIR)
// that redirects, and the page is gone once the login ends.
func TestAuthLogin_TheBrowsersArgvHoldsNoAuthorizationURL(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	srv := newLoginServer(t)
	env, store := authEnv(t)
	rec, runtime := t.TempDir(), t.TempDir()
	if err := os.Chmod(runtime, 0o700); err != nil { // as the system makes it
		t.Fatal(err)
	}
	env["BROWSER"], env["XDG_RUNTIME_DIR"] = recordingBrowser(t, rec), runtime
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"remote": {"url": "`+srv.mcp.URL+`/mcp"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mcpvisor(ctx, env, "", "auth", "login", "remote", "--config", cfg, "--no-resync")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "logged in to remote") {
		t.Fatalf("auth login: %+v", r)
	}
	if _, err := store.Load("remote", srv.mcp.URL+"/mcp"); err != nil {
		t.Errorf("no token stored: %v", err)
	}
	argv, err := os.ReadFile(filepath.Join(rec, "argv"))
	if err != nil {
		t.Fatalf("the browser did not run: %v", err)
	}
	srv.mu.Lock()
	secrets := append([]string{srv.as.URL, "state=", "code_challenge"}, srv.secrets...)
	srv.mu.Unlock()
	for _, s := range secrets {
		if s != "" && strings.Contains(string(argv), s) {
			t.Errorf("the browser's command line holds %q:\n%s", s, argv)
		}
	}
	args := strings.Split(strings.TrimSpace(string(argv)), "\n")
	page := args[len(args)-1]
	if !strings.HasPrefix(page, runtime+string(filepath.Separator)+"mcpvisor-login-") {
		t.Errorf("the page %s is not in a directory of its own under XDG_RUNTIME_DIR %s", page, runtime)
	}
	if modes, _ := os.ReadFile(filepath.Join(rec, "modes")); string(modes) != "600\n700\n" {
		t.Errorf("page and directory modes %q, want 600 and 700", modes)
	}
	if left, _ := os.ReadDir(runtime); len(left) != 0 {
		t.Errorf("the login left %v in XDG_RUNTIME_DIR", left)
	}
}

// urlWriter is a standard error that hands on every printed URL line.
type urlWriter struct {
	mu   sync.Mutex
	text strings.Builder
	urls chan string
}

func (w *urlWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text.Write(p)
	for _, line := range strings.Split(string(p), "\n") {
		if u := strings.TrimSpace(line); strings.HasPrefix(u, "http://") {
			w.urls <- u
		}
	}
	return len(p), nil
}

// With --no-browser the URL is only printed (on the user's terminal);
// no browser starts, and following the printed URL completes the login.
func TestAuthLogin_NoBrowserOnlyPrintsTheURL(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	srv := newLoginServer(t)
	env, store := authEnv(t)
	rec := t.TempDir()
	env["BROWSER"] = recordingBrowser(t, rec)
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"remote": {"url": "`+srv.mcp.URL+`/mcp"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr := &urlWriter{urls: make(chan string, 4)}
	followed := make(chan error, 1)
	go func() {
		select {
		case u := <-stderr.urls:
			resp, err := http.Get(u)
			if err == nil {
				resp.Body.Close()
			}
			followed <- err
		case <-ctx.Done():
			followed <- ctx.Err()
		}
	}()
	var stdout strings.Builder
	code := cli.Main(ctx, []string{"auth", "login", "remote", "--config", cfg, "--no-resync", "--no-browser"}, cli.IO{
		Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: stderr,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	if err := <-followed; err != nil {
		t.Fatalf("following the printed URL: %v", err)
	}
	if code != cli.ExitOK {
		t.Fatalf("auth login --no-browser: exit %d\n%s%s", code, stdout.String(), stderr.text.String())
	}
	if _, err := store.Load("remote", srv.mcp.URL+"/mcp"); err != nil {
		t.Errorf("no token stored: %v", err)
	}
	if _, err := os.Stat(filepath.Join(rec, "argv")); err == nil {
		t.Error("a browser was started despite --no-browser")
	}
}
