package actors_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// D1, run-time secrets: a remote server that echoes the bearer token it
// was sent into its tool's description shows it nowhere: not in the
// listed tools (what the API and the gateway serve), not in the events,
// not in the catalog cache. The token comes from a headersHelper (known
// only once the helper has run) or from a static header.
func TestSession_CatalogEchoingItsBearerTokenIsRedacted(t *testing.T) {
	t.Parallel()
	const token = "helper-bearer-token-5d1f9a"
	cases := map[string]map[string]any{
		// The helper prints a file's text: its command line holds no
		// credential the config's secrets could know of.
		"headersHelper": {"headersHelper": "cat headers.json"},
		"static header": {"headers": map[string]string{"Authorization": "Bearer " + token}},
	}
	for name, auth := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			echo := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
				sent := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				return toolServer(tool("who", "your token is "+sent))()
			}, nil)
			srv := httptest.NewServer(echo)
			t.Cleanup(srv.Close)
			dir, cache := t.TempDir(), t.TempDir()
			entry := map[string]any{"type": "http", "url": srv.URL}
			for k, v := range auth {
				entry[k] = v
			}
			if err := os.WriteFile(filepath.Join(dir, "headers.json"), []byte(`{"Authorization": "Bearer `+token+`"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, ".mcp.json")
			writeConfig(t, path, map[string]any{"remote": entry})
			noDial := func(messages.ServerSpec) (mcp.Transport, error) { return nil, nil }
			sup, rec := startWithDial(t, quartz.NewMock(t).WithLogger(quartz.NoOpLogger), noDial,
				actors.Options{ConfigPaths: []string{path}, CacheDir: cache})
			rec.WaitState(ctx, 0, "remote", messages.StateReady)

			tools := sup.Tools()
			if len(tools) != 1 || !strings.Contains(tools[0].Description, redact.Mark) {
				t.Fatalf("tools %+v, want who's description with %s where the token was", tools, redact.Mark)
			}
			if dump := rec.Dump(); strings.Contains(dump, token) {
				t.Errorf("the events show the token:\n%s", dump)
			}
			if err := sup.Close(); err != nil { // writes the cache
				t.Fatal(err)
			}
			files := cacheFiles(t, cache)
			if len(files) != 1 {
				t.Fatalf("cache files %v, want remote's", files)
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), token) {
				t.Errorf("the cache holds the token:\n%s", data)
			}
		})
	}
}

// The same for an OAuth access token: a server that shows the token it
// was sent (a stored login's, read from the token store at connect) in a
// tool's description shows it redacted.
func TestOAuth_CatalogEchoingTheAccessTokenIsRedacted(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	const access = "planted-access-echo-7c2e"
	as := newAuthServer(t)
	clock := quartz.NewMock(t)
	dir := t.TempDir()
	srv := toolServer(tool("who", "your token is "+access))()
	url := as.protectServer("/mcp", srv, func(h http.Handler) http.Handler { return h })
	plantRecord(t, dir, as, "remote", url, access, "planted-refresh-echo-7c2e", clock.Now().Add(time.Hour))
	sup, rec := startOAuth(t, clock, dir, map[string]any{"remote": map[string]any{"url": url}})
	rec.WaitState(ctx, 0, "remote", messages.StateReady)
	if seen := as.tokensSeen("/mcp"); len(seen) == 0 || seen[0] != access {
		t.Fatalf("the server was sent %q, want the stored token", seen)
	}
	tools := sup.Tools()
	if len(tools) != 1 || strings.Contains(tools[0].Description, access) || !strings.Contains(tools[0].Description, redact.Mark) {
		t.Fatalf("tools %+v, want who's description with %s where the token was", tools, redact.Mark)
	}
	if dump := rec.Dump(); strings.Contains(dump, access) {
		t.Errorf("the events show the token:\n%s", dump)
	}
}
