package actors_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// headersHelper (Claude Code's field) is a real subprocess run in the
// config file's folder: its JSON output's headers go with every request;
// after a 401 it runs again and the request is sent once more with the new
// headers. Here the server only takes the helper's second token.
func TestSession_HeadersHelperRunsAtConnectAndAfterA401(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	dir := t.TempDir()
	script := "#!/bin/sh\nn=$(cat count 2>/dev/null || echo 0)\nn=$((n+1))\necho $n > count\necho \"$MCPVISOR_SERVER_NAME\" > name\nprintf '{\"Authorization\": \"Bearer tok-%s\"}' $n\n"
	if err := os.WriteFile(filepath.Join(dir, "helper.sh"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int64
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return toolServer(tool("who", "w"))() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-2" {
			refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	path := filepath.Join(dir, ".mcp.json")
	writeConfig(t, path, map[string]any{"remote": map[string]any{"type": "http", "url": srv.URL, "headersHelper": "./helper.sh"}})
	noDial := func(messages.ServerSpec) (mcp.Transport, error) { return nil, nil }
	sup, rec := startWithDial(t, mClock, noDial, actors.Options{ConfigPaths: []string{path}})
	rec.WaitState(ctx, 0, "remote", messages.StateReady)
	res, err := sup.CallTool(ctx, "remote__who", map[string]any{})
	if err != nil || testkit.Text(res) != "who" {
		t.Fatalf("call: %v %v", res, err)
	}
	count, _ := os.ReadFile(filepath.Join(dir, "count"))
	if got := strings.TrimSpace(string(count)); got != "2" {
		t.Errorf("the helper ran %s times, want 2 (connect, then after the 401)", got)
	}
	if refused.Load() != 1 {
		t.Errorf("the server refused %d requests, want 1", refused.Load())
	}
	if name, _ := os.ReadFile(filepath.Join(dir, "name")); strings.TrimSpace(string(name)) != "remote" {
		t.Errorf("MCPVISOR_SERVER_NAME = %q", name)
	}
}

// A helper that fails or prints something that is not a JSON object of
// headers fails the connect with an error that shows none of its output.
func TestSession_HeadersHelperFailureShowsNoOutput(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	dir := t.TempDir()
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	path := filepath.Join(dir, "mcp.json")
	writeConfig(t, path, map[string]any{
		"garbage": map[string]any{"type": "http", "url": srv.URL, "headersHelper": "echo not-json-secret-123"},
		"failing": map[string]any{"type": "http", "url": srv.URL, "headersHelper": "echo leaked-secret-456 >&2; exit 3"},
	})
	noDial := func(messages.ServerSpec) (mcp.Transport, error) { return nil, nil }
	_, rec := startWithDial(t, mClock, noDial, actors.Options{ConfigPaths: []string{path}})
	for name, want := range map[string]string{"garbage": "did not print a JSON object of headers", "failing": "headersHelper failed: exit status 3"} {
		_, failed := rec.WaitState(ctx, 0, name, messages.StateFailed)
		if !strings.Contains(failed.Error, want) || strings.Contains(failed.Error, "secret") {
			t.Errorf("%s failed with %q, want %q and none of the helper's output", name, failed.Error, want)
		}
	}
}
