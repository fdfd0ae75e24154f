package clients_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// inspectorCall is one MCP Inspector CLI one-shot: its method flags and
// the part of its printed result that must equal the direct one.
type inspectorCall struct {
	method string
	flags  []string
	// payload picks, from the printed result, what is compared.
	payload func(object) any
}

var inspectorCalls = []inspectorCall{
	{"tools/list", []string{"--method", "tools/list"}, toolNames},
	{"tools/call", []string{"--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hello"}, field("content")},
	{"prompts/get", []string{"--method", "prompts/get", "--prompt-name", "args-prompt", "--prompt-args", "city=Paris", "state=IDF"}, field("messages")},
	{"resources/read", []string{"--method", "resources/read", "--uri", "demo://resource/static/document/architecture.md"}, field("contents")},
}

// toolNames is a tools/list result's tool names, sorted: the one-shot
// checks that every tool is there at once; the tools' fields are
// TestSDK_ServeMatchesDirect's.
func toolNames(r object) any {
	tools, _ := r.get("tools")
	var names []any
	for _, tl := range tools.([]any) {
		names = append(names, fieldString(tl, "name"))
	}
	slices.SortFunc(names, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
	return names
}

// field picks one field of a result, with key order (outside schemas and
// structured content) and server-everything's clock taken out.
func field(key string) func(object) any {
	return func(r object) any {
		v, _ := r.get(key)
		return walk(canonical(v), unclock)
	}
}

// runInspector runs `mcp-inspector --cli target... flags...` and returns
// the payload of what it printed.
func runInspector(t *testing.T, ctx context.Context, call inspectorCall, target ...string) (any, bool) {
	t.Helper()
	args := append(append([]string{inspectorCLI, "--cli"}, target...), call.flags...)
	out := runClient(ctx, t.TempDir(), clientEnv(), nodeBin, args...)
	if out.err != nil {
		t.Errorf("inspector %s: %v\nstdout:\n%s\nstderr:\n%s", call.method, out.err, out.stdout, out.stderr)
		return nil, false
	}
	v, err := decodeOrdered([]byte(out.stdout))
	r, ok := v.(object)
	if err != nil || !ok {
		t.Errorf("inspector %s printed no JSON object (%v):\n%s\nstderr:\n%s", call.method, err, out.stdout, out.stderr)
		return nil, false
	}
	return call.payload(r), true
}

// The MCP Inspector CLI, which starts a new client (and, on stdio, a new
// `mcpvisor serve`) for every command, gets from each one-shot through
// serve what it gets from server-everything directly, on the first try:
// tools/list, tools/call, prompts/get and resources/read, with a cold
// catalog cache and with a warm one (filled by a tools/list one-shot
// before), on stdio (the Inspector launches serve; the config comes in
// MCPVISOR_CONFIG, as the Inspector keeps --config for itself) and on
// streamable HTTP (serve started just before; --no-auth, as the
// Inspector 0.15 sends no headers).
func TestInspector_OneShotsMatchDirect(t *testing.T) {
	t.Parallel()
	ctx := testctx.WithTimeout(t, matrixTimeout)
	direct := map[string]any{}
	for _, call := range inspectorCalls {
		p, ok := runInspector(t, ctx, call, nodeBin, everythingJS, "stdio")
		if !ok {
			t.FailNow()
		}
		direct[call.method] = p
	}

	// target starts what the Inspector connects to, for one run, and
	// returns the Inspector's target arguments.
	targets := map[string]func(t *testing.T, cfg, cache string) []string{
		"stdio": func(_ *testing.T, cfg, cache string) []string {
			return []string{"-e", "MCPVISOR_CONFIG=" + cfg, "--", bin, "serve", "--names", "bare", "--cache-dir", cache}
		},
		"http": func(t *testing.T, cfg, cache string) []string {
			// A fresh gateway for each run: the one-shot comes while its
			// server starts.
			endpoint := startServeHTTP(t, testctx.WithTimeout(t, matrixTimeout),
				"--names", "bare", "--no-auth", "--cache-dir", cache, "--config", cfg)
			return []string{endpoint, "--transport", "http"}
		},
	}
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			cfg := writeServers(t)
			check := func(t *testing.T, call inspectorCall, cache string) {
				ctx := testctx.WithTimeout(t, matrixTimeout)
				got, ok := runInspector(t, ctx, call, targets[transport](t, cfg, cache)...)
				if !ok {
					return
				}
				if diff := cmp.Diff(indent(direct[call.method]), indent(got)); diff != "" {
					t.Errorf("%s through serve differs from direct (-direct +gateway):\n%s", call.method, diff)
				}
			}
			t.Run("cold", func(t *testing.T) {
				for _, call := range inspectorCalls {
					t.Run(call.method, func(t *testing.T) {
						t.Parallel()
						check(t, call, cacheDir(t))
					})
				}
			})
			t.Run("warm", func(t *testing.T) {
				cache := cacheDir(t)
				t.Run("prime", func(t *testing.T) {
					primeCache(t, testctx.WithTimeout(t, matrixTimeout), targets[transport](t, cfg, cache), cache)
				})
				if t.Failed() {
					return
				}
				for _, call := range inspectorCalls {
					t.Run(call.method, func(t *testing.T) {
						t.Parallel()
						check(t, call, cache)
					})
				}
			})
		})
	}
}

// primeCache fills a warm run's catalog cache: a tools/list one-shot
// through target (lists wait for the servers to start, so the catalog is
// then cached), then a check that the cache holds an entry. It runs in a
// subtest of its own, whose cleanup stops an HTTP gateway it started.
func primeCache(t *testing.T, ctx context.Context, target []string, cache string) {
	t.Helper()
	args := append(append([]string{inspectorCLI, "--cli"}, target...), "--method", "tools/list")
	if out := runClient(ctx, t.TempDir(), clientEnv(), nodeBin, args...); out.err != nil {
		t.Fatalf("priming the cache with a tools/list one-shot: %v\nstderr:\n%s", out.err, out.stderr)
	}
	requireCatalogCached(t, cache)
}

// requireCatalogCached fails the test unless the cache directory holds a
// file: the warm run would not be warm.
func requireCatalogCached(t *testing.T, dir string) {
	t.Helper()
	found := false
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			found = true
		}
		return nil
	})
	if !found {
		t.Fatalf("the cold run left no catalog in %s: the warm run would not be warm", dir)
	}
}
