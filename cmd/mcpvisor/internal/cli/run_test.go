package cli_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
)

// emptyConfig is a config file without servers.
func emptyConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// stateEnv is an environment whose XDG_STATE_HOME is a new directory:
// where `run` keeps its token.
func stateEnv(t *testing.T) map[string]string {
	return map[string]string{"XDG_STATE_HOME": t.TempDir()}
}

// Serving the API with a short token is refused before anything starts,
// beyond loopback and on loopback too (A1: another local user could
// guess it).
func TestRun_ShortTokenIsRefused(t *testing.T) {
	t.Parallel()
	for _, listen := range []string{"0.0.0.0:0", ":0", "127.0.0.1:0"} {
		env := stateEnv(t)
		env["MCPVISOR_TOKEN"] = "short"
		r := mcpvisor(actorstest.Context(t), env, "", "run", "--config", emptyConfig(t), "--listen", listen)
		r.want(t, cli.ExitUsage, "", "MCPVISOR_TOKEN: the token is 5 bytes")
		if !strings.Contains(r.stderr, "at least 32") || r.stdout != "" || strings.Contains(r.stderr, "short") {
			t.Fatalf("stdout %q stderr %q: want nothing started, the rule, and not the token", r.stdout, r.stderr)
		}
	}
}

func TestRun_EmptyTokenFileIsAUsageError(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mcpvisor(actorstest.Context(t), stateEnv(t), "", "run", "--config", emptyConfig(t), "--token-file", file).want(t, cli.ExitUsage, "", "is empty")
}

// A token file that its group or others may read is refused (like ssh).
// (The default file is rewritten, private, at each start: see
// TestServerToken_ExposedDefaultFileIsReplaced.)
func TestRun_TokenFileReadableByOthersIsRefused(t *testing.T) {
	t.Parallel()
	named := filepath.Join(t.TempDir(), "token")
	writeToken(t, named, strings.Repeat("k", 43), 0o640)
	mcpvisor(actorstest.Context(t), stateEnv(t), "", "run", "--config", emptyConfig(t), "--token-file", named).want(t, cli.ExitUsage, "", "chmod 600 "+named)
}

func TestRun_BadAllowOriginIsAUsageError(t *testing.T) {
	t.Parallel()
	mcpvisor(actorstest.Context(t), stateEnv(t), "", "run", "--config", emptyConfig(t), "--allow-origin", "localhost:3000").
		want(t, cli.ExitUsage, "", "--allow-origin")
}

func TestRun_TakenPortFailsFast(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := mcpvisor(actorstest.Context(t), stateEnv(t), "", "run", "--config", emptyConfig(t), "--listen", l.Addr().String())
	r.want(t, cli.ExitFailed, "", "is another `mcpvisor run` using it? pass --listen HOST:PORT, or --listen off")
}

// run serves the API on the port it prints, with a token it created at
// its start (0600 in a 0700 directory) that the CLI finds by itself;
// --allow-origin lets one web origin in and no other. An interrupt ends
// open event streams (their clients see the daemon go), stops
// everything, exit 0.
func TestRun_ServesTheAPIAndStopsCleanly(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env := stateEnv(t)
	stdout := newLineReader()
	runCtx, interrupt := context.WithCancel(ctx)
	ran := make(chan int, 1)
	go func() {
		ran <- cli.Main(runCtx, []string{"run", "--config", emptyConfig(t), "--listen", "127.0.0.1:0", "--allow-origin", "http://localhost:3000"},
			cli.IO{Stdout: stdout, Stderr: io.Discard, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	}()
	tokenFile := filepath.Join(env["XDG_STATE_HOME"], "mcpvisor", "token")
	var addr string
	for addr == "" {
		line := stdout.next(ctx, t)
		if rest, ok := strings.CutPrefix(line, "mcpvisor: HTTP API on http://"); ok {
			addr, _, _ = strings.Cut(rest, " ")
			if want := "(bearer token in " + tokenFile + ")"; !strings.HasSuffix(line, want) {
				t.Fatalf("%q: want it to end with %q", line, want)
			}
		}
	}
	token := checkTokenFile(t, tokenFile)
	env["MCPVISOR_ADDR"] = addr
	mcpvisor(ctx, env, "", "status").want(t, cli.ExitOK, "(no servers configured)", "")

	for origin, want := range map[string]int{"": 200, "http://localhost:3000": 200, "http://evil.example": 403, "http://localhost:3001": 403} {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/api/v1/resync", strings.NewReader(`{"dryRun": true}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("resync with Origin %q = %d, want %d", origin, res.StatusCode, want)
		}
	}

	events := newLineReader()
	followed := make(chan int, 1)
	go func() {
		followed <- cli.Main(ctx, []string{"events", "--since", "0", "--json"},
			cli.IO{Stdout: events, Stderr: io.Discard, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	}()
	for !strings.Contains(events.next(ctx, t), `"type":"config.loaded"`) {
	}

	interrupt()
	if code := <-ran; code != cli.ExitOK {
		t.Fatalf("run exit %d after an interrupt, want 0", code)
	}
	if code := <-followed; code != cli.ExitNoDaemon {
		t.Fatalf("events exit %d once the daemon stopped, want 3", code)
	}
	http.DefaultClient.CloseIdleConnections()
}

// checkTokenFile checks that the token file and its directory are the
// owner's alone and returns the token: 43 characters of base64url (32
// random bytes).
func checkTokenFile(t *testing.T, path string) string {
	t.Helper()
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s has mode %04o, want %04o", p, st.Mode().Perm(), want)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(b))
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`).MatchString(token) {
		t.Fatalf("token %q: want 43 base64url characters", token)
	}
	return token
}
