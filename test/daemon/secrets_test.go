package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// TestDaemon_NoSecretInAnyOutput puts a secret in every place a config
// can hold one (an env value, an env value expanded from the daemon's
// environment, a header, URL user info, path and query) plus the API token
// (in its token file and MCPVISOR_TOKEN; a server reads the file and
// prints it on stderr), makes them reach error messages and stderr tails,
// and then reads everything the daemon and its API say: no secret may
// appear in any response, event or log line.
func TestDaemon_NoSecretInAnyOutput(t *testing.T) {
	t.Parallel()
	ctx := actorstest.ContextTimeout(t, daemonTimeout)
	secrets := map[string]string{
		"env value":      "SECRET-ENV-VALUE-9f3k",
		"expanded value": "SECRET-EXPANDED-2ab7",
		"stderr value":   "SECRET-STDERR-5tq1",
		"header value":   "SECRET-HEADER-77xq",
		"URL password":   "SECRET-URL-PASS-4kd",
		"URL path":       "SECRET-PATH-0pl3",
		"URL query":      "SECRET-QUERY-8zzm",
		"API token":      "SECRET-API-TOKEN-31ow-at-least-32-bytes",
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(secrets["API token"]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dead := deadPort(t)
	live, stopLive := liveServer(t, secrets["header value"])
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	config := map[string]any{"mcpServers": map[string]any{
		"alpha": map[string]any{
			"command": bin, "args": []string{"example-server", "--name", "alpha"},
			"env": map[string]string{"API_KEY": secrets["env value"], "EXPANDED": "${MY_TOKEN}"},
		},
		"remote": map[string]any{
			"type":    "http",
			"url":     fmt.Sprintf("http://user:%s@%s/mcp/%s?token=%s", secrets["URL password"], dead, secrets["URL path"], secrets["URL query"]),
			"headers": map[string]string{"Authorization": "Bearer " + secrets["header value"]},
		},
		"live": map[string]any{
			"type":    "http",
			"url":     fmt.Sprintf("http://user:%s@%s/mcp/%s?token=%s", secrets["URL password"], live, secrets["URL path"], secrets["URL query"]),
			"headers": map[string]string{"Authorization": "Bearer " + secrets["header value"]},
		},
		"leaky": map[string]any{
			"command": "sh", "args": []string{"-c", `echo "leaked: $LEAKY and $EXPANDED and $MY_TOKEN and $(cat ` + tokenFile + `)" >&2; exit 1`},
			"env":     map[string]string{"LEAKY": secrets["stderr value"], "EXPANDED": "${MY_TOKEN}"},
			"restart": "never",
		},
	}}
	data, err := json.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}

	daemonEnv := []string{"MY_TOKEN=" + secrets["expanded value"], "MCPVISOR_TOKEN=" + secrets["API token"]}
	d, addr := daemon(ctx, t, daemonEnv, cfg, "--log-level", "debug", "--log-format", "json", "--token-file", tokenFile)
	env := []string{"MCPVISOR_ADDR=" + addr, "MCPVISOR_TOKEN=" + secrets["API token"]}

	events := start(t, env, "events", "--since", "0", "--json")
	events.waitStates(ctx, map[string]string{"alpha": "ready", "live": "ready", "leaky": "failed", "remote": "failed"})

	// Everything a client can see, through the CLI and plain HTTP.
	seen := map[string]string{}
	for _, args := range [][]string{
		{"status", "--json"}, {"status"}, {"tools", "--json"}, {"tools"},
		{"resync", "--dry-run", "--json"}, {"resync", "--json"}, {"resync"},
		{"call", "alpha__echo", `{"message": "hi"}`}, {"call", "remote__anything"}, {"call", "leaky__anything"},
		{"call", "live__drop"},                                        // the transport fails the call: a 502 with the upstream error
		{"call", "alpha__getenv", `{"name": "MCPVISOR_TOKEN"}`},       // servers do not inherit the API token
		{"events", "--since", "0", "--json", "--addr", "127.0.0.1:1"}, // unreachable: its error message
	} {
		r := run(ctx, t, env, args...)
		seen[strings.Join(args, " ")] = r.stdout + r.stderr
	}
	// With the server gone, the call fails to dial: the transport's error
	// names the URL.
	stopLive()
	r := run(ctx, t, env, "call", "live__drop")
	seen["call live__drop with the server gone"] = r.stdout + r.stderr
	r = run(ctx, t, []string{"MCPVISOR_ADDR=" + addr, "MCPVISOR_TOKEN=a-wrong-token-long-enough-to-be-sent"}, "status")
	seen["status with a wrong token"] = r.stdout + r.stderr
	for _, path := range []string{"/metrics", "/api/v1/status", "/api/v1/events?since=0"} {
		seen["GET "+path] = get(t, "http://"+addr+path, secrets["API token"], path == "/api/v1/events?since=0")
	}

	// The status must show the failures, or this test proves nothing.
	if r := seen["call live__drop"]; !strings.Contains(r, "upstream error") {
		t.Fatalf("call live__drop: %s, want an upstream error", r)
	}
	status := seen["status --json"]
	for _, want := range []string{`"name":"remote"`, `"name":"leaky"`, "leaked: [redacted] and [redacted] and [redacted] and [redacted]", `"state":"failed"`} {
		if !strings.Contains(status, want) {
			t.Fatalf("status lacks %q: the test is not exercising what it should\n%s", want, status)
		}
	}

	if code := d.interrupt(ctx); code != 0 {
		t.Fatalf("run exit %d\nstderr:\n%s", code, d.stderr.String())
	}
	events.exitCode(ctx)
	seen["daemon stdout"] = d.stdout.String()
	seen["daemon stderr (debug logs)"] = d.stderr.String()
	seen["events --since 0 --json"] = events.stdout.String() + events.stderr.String()
	if !strings.Contains(seen["daemon stderr (debug logs)"], `"level":"debug"`) {
		t.Fatalf("no debug log lines to check:\n%s", seen["daemon stderr (debug logs)"])
	}

	for where, text := range seen {
		for what, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("the %s appears in %s:\n%s", what, where, excerpt(text, secret))
			}
		}
	}
}

// deadPort is a loopback address nothing listens on.
func deadPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// liveServer serves a stateless streamable-HTTP MCP server with one tool,
// drop, whose calls the transport fails (500); once stopped, calls fail to
// dial, and that error names the server's URL. It checks that the
// configured header arrives.
func liveServer(t *testing.T, header string) (addr string, stop func()) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "live", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "drop", Description: "Its calls fail in the transport."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+header {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			http.Error(w, "dropped", http.StatusInternalServerError)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	stop = func() {
		ts.CloseClientConnections() // the client's hanging GET, if any
		ts.Close()
	}
	t.Cleanup(stop)
	return strings.TrimPrefix(ts.URL, "http://"), stop
}

// get fetches url with the token. An event stream never ends by itself:
// it is read until the replay has shown the resyncs made above.
func get(t *testing.T, url, token string, stream bool) string {
	t.Helper()
	req, err := http.NewRequestWithContext(actorstest.ContextTimeout(t, daemonTimeout), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if !stream {
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	var all strings.Builder
	buf := make([]byte, 64<<10)
	for strings.Count(all.String(), "event: resync.completed") < 3 {
		n, err := res.Body.Read(buf)
		all.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return all.String()
}

func excerpt(text, secret string) string {
	i := strings.Index(text, secret)
	from, to := max(0, i-200), min(len(text), i+len(secret)+200)
	return "…" + text[from:to] + "…"
}
