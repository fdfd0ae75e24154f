package actors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/coder/quartz"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// heldServers dials in-memory servers that answer the handshake only once
// release is called: until then their servers are starting (the
// transport's Connect waits, within the connect's context). Each dial
// builds a fresh server.
type heldServers struct {
	mk       map[string]func() *mcp.Server
	released chan struct{}
	once     sync.Once
}

func newHeldServers(t *testing.T, mk map[string]func() *mcp.Server) *heldServers {
	h := &heldServers{mk: mk, released: make(chan struct{})}
	t.Cleanup(h.release)
	return h
}

func (h *heldServers) release() { h.once.Do(func() { close(h.released) }) }

func (h *heldServers) dial(spec messages.ServerSpec) (mcp.Transport, error) {
	return &heldTransport{released: h.released, mk: h.mk[spec.Name]}, nil
}

type heldTransport struct {
	released <-chan struct{}
	mk       func() *mcp.Server
}

func (t *heldTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	select {
	case <-t.released:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := t.mk().Connect(context.Background(), st, nil); err != nil {
		return nil, err
	}
	return ct.Connect(ctx)
}

// warmCache runs a supervisor over config until every named server is
// ready, then closes it, which writes the cache in dir.
func warmCache(t *testing.T, ctx context.Context, dir, config string, servers map[string]func() *mcp.Server) {
	t.Helper()
	sup, rec := startInMemory(t, quartz.NewMock(t).WithLogger(quartz.NoOpLogger), newFleet(t, servers),
		actors.Options{ConfigPaths: []string{config}, CacheDir: dir})
	for name := range servers {
		rec.WaitState(ctx, 0, name, messages.StateReady)
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
}

// cacheFiles lists the entries in the cache dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "catalogs", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// catalogEventsOf lists the catalog events of server among events.
func catalogEventsOf(events []messages.Event, server string) []messages.Event {
	var out []messages.Event
	for _, e := range events {
		switch e := e.(type) {
		case *messages.ToolsChanged:
			if e.Server == server {
				out = append(out, e)
			}
		case *messages.PromptsChanged:
			if e.Server == server {
				out = append(out, e)
			}
		case *messages.ResourcesChanged:
			if e.Server == server {
				out = append(out, e)
			}
		case *messages.ResourceTemplatesChanged:
			if e.Server == server {
				out = append(out, e)
			}
		}
	}
	return out
}

func toolNames(tools []messages.Tool) []string {
	out := []string{}
	for _, t := range tools {
		out = append(out, actors.QualifiedName(t.Prefix, t.Name))
	}
	return out
}

// A server that is still starting (its handshake held) is listed with
// the catalog it had last time: tools, prompts, resources and templates,
// each marked cached, its status row too, announced as added; a call of a
// cached tool, a get of a cached prompt, a read of a cached URI and a
// subscription to it wait for the server and are answered once it is up
// (a one-shot client's first request). When the live catalog comes and is the same, nothing is
// announced: no catalog event at all.
func TestCatalogCache_ListsTheLastCatalogWhileTheServerStarts(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir, config := t.TempDir(), configFor(t, "a")
	mk := map[string]func() *mcp.Server{"a": func() *mcp.Server { return newCatalogServer("a").srv }}
	warmCache(t, ctx, dir, config, mk)
	if files := cacheFiles(t, dir); len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}

	held := newHeldServers(t, mk)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	sup, rec := startWithDial(t, mClock, held.dial, actors.Options{ConfigPaths: []string{config}, CacheDir: dir})
	start, _ := rec.WaitState(ctx, 0, "a", messages.StateStarting)
	_, ev := rec.WaitFor(ctx, start, "cached tools", func(e messages.Event) bool { tc, ok := e.(*messages.ToolsChanged); return ok && tc.Server == "a" })
	if diff := cmp.Diff([]string{"echo"}, ev.(*messages.ToolsChanged).Added); diff != "" {
		t.Errorf("cached tools announced (-want +got):\n%s", diff)
	}
	tools := sup.Tools()
	if diff := cmp.Diff([]string{"a__echo"}, toolNames(tools)); diff != "" || !tools[0].Cached {
		t.Fatalf("tools while starting %+v, want a__echo cached (-want +got):\n%s", tools, diff)
	}
	if p := sup.Prompts(); len(p) != 1 || p[0].Name != "greet" || p[0].Prefix != "a" || !p[0].Cached {
		t.Errorf("prompts while starting %+v, want a's greet, cached", p)
	}
	if r := sup.Resources(); len(r) != 1 || r[0].URI != "mem://a/readme" || !r[0].Cached {
		t.Errorf("resources while starting %+v, want mem://a/readme, cached", r)
	}
	if tm := sup.ResourceTemplates(); len(tm) != 1 || !tm[0].Cached {
		t.Errorf("templates while starting %+v, want one, cached", tm)
	}
	row := sup.Status().Servers[0]
	if row.State != messages.StateStarting || !row.Cached || row.Tools != 1 || row.Prompts != 1 || row.Resources != 1 || row.Templates != 1 {
		t.Errorf("status row %+v: want starting, cached, counting 1 of each", row)
	}
	answers := whileStarting(t, ctx, mClock, held.release,
		func() error { _, err := sup.CallTool(ctx, "a__echo", map[string]any{"message": "hi"}); return err },
		func() error { _, err := sup.GetPrompt(ctx, "a__greet", map[string]string{"who": "x"}); return err },
		func() error { _, err := sup.ReadResource(ctx, "mem://a/readme"); return err },
		func() error { _, err := sup.ReadResource(ctx, "mem://a/items/7"); return err },
		func() error { return sup.SubscribeResource(ctx, "mem://a/readme") },
	)
	for i, err := range answers {
		if err != nil {
			t.Errorf("request %d of a cached item while the server starts: %v, want it answered once the server is up", i, err)
		}
	}
	ready, _ := rec.WaitState(ctx, start, "a", messages.StateReady)
	actorstest.Barrier(ctx, t, sup, actorstest.Fleet)
	if evs := catalogEventsOf(rec.Since(ready), "a"); len(evs) != 0 {
		t.Errorf("the live catalog equals the cached one, yet catalog events came: %+v", evs)
	}
	tools = sup.Tools()
	if len(tools) != 1 || tools[0].Cached {
		t.Errorf("tools once ready %+v: want a__echo, live", tools)
	}
	if row := sup.Status().Servers[0]; row.Cached {
		t.Errorf("status row once ready %+v: still cached", row)
	}
}

// A server with the empty prefix lists its cached tools and prompts by
// their own names; calling or getting one before it is up waits for it
// too, and is answered; a name no cached catalog lists is unknown at once.
func TestCatalogCache_ACachedItemOfABareServerWaitsForIt(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	config := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, config, map[string]any{"bare": map[string]any{"command": "in-memory", "prefix": ""}})
	mk := map[string]func() *mcp.Server{"bare": func() *mcp.Server { return newCatalogServer("bare").srv }}
	warmCache(t, ctx, dir, config, mk)

	held := newHeldServers(t, mk)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	sup, rec := startWithDial(t, mClock, held.dial, actors.Options{ConfigPaths: []string{config}, CacheDir: dir})
	start, _ := rec.WaitState(ctx, 0, "bare", messages.StateStarting)
	rec.WaitFor(ctx, start, "cached tools", func(e messages.Event) bool { tc, ok := e.(*messages.ToolsChanged); return ok && tc.Server == "bare" })
	if diff := cmp.Diff([]string{"echo"}, toolNames(sup.Tools())); diff != "" {
		t.Fatalf("cached tools (-want +got):\n%s", diff)
	}
	if _, err := sup.CallTool(ctx, "nope", nil); !errors.Is(err, actors.ErrUnknownTool) {
		t.Errorf("call of a tool nobody lists: %v, want ErrUnknownTool", err)
	}
	answers := whileStarting(t, ctx, mClock, held.release,
		func() error { _, err := sup.CallTool(ctx, "echo", map[string]any{"message": "hi"}); return err },
		func() error { _, err := sup.GetPrompt(ctx, "greet", map[string]string{"who": "x"}); return err },
	)
	for i, err := range answers {
		if err != nil {
			t.Errorf("request %d of a bare cached item while the server starts: %v, want it answered once the server is up", i, err)
		}
	}
}

// A lazy server whose catalog the cache knows is not started to list it:
// it is idle, listed from the cache, and the first call of a cached tool
// starts it and is answered. Its live catalog, the same, announces
// nothing.
func TestCatalogCache_ALazyServerIsListedFromTheCacheUntilUsed(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	config := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, config, map[string]any{"a": map[string]any{"command": "in-memory", "autostart": "lazy"}})
	mk := map[string]func() *mcp.Server{"a": toolServer(tool("echo", "e"))}
	warmCache(t, ctx, dir, config, mk) // a lazy server without a known catalog is started once to list it

	f := newFleet(t, mk)
	sup, rec := startInMemory(t, quartz.NewMock(t).WithLogger(quartz.NoOpLogger), f, actors.Options{ConfigPaths: []string{config}, CacheDir: dir})
	_, ev := rec.WaitFor(ctx, 0, "cached tools", func(e messages.Event) bool { tc, ok := e.(*messages.ToolsChanged); return ok && tc.Server == "a" })
	if tc := ev.(*messages.ToolsChanged); !slices.Equal(tc.Added, []string{"echo"}) || !tc.Tools[0].Cached {
		t.Fatalf("cached tools announced %+v, want echo, cached", tc)
	}
	actorstest.Barrier(ctx, t, sup, actorstest.Fleet)
	if row := sup.Status().Servers[0]; row.State != messages.StateIdle || !row.Cached || row.Tools != 1 {
		t.Fatalf("status row %+v: want idle, cached, 1 tool", row)
	}
	if n := f.dialCount("a"); n != 0 {
		t.Fatalf("the lazy server was dialled %d times to list a catalog the cache knows", n)
	}
	mark := rec.Len()
	res, err := sup.CallTool(ctx, "a__echo", map[string]any{})
	if err != nil {
		t.Fatalf("call of a cached tool of a lazy server: %v", err)
	}
	if got := testkit.Text(res); got != "echo" {
		t.Errorf("call answered %q, want echo", got)
	}
	actorstest.Barrier(ctx, t, sup, actorstest.Fleet)
	if evs := catalogEventsOf(rec.Since(mark), "a"); len(evs) != 0 {
		t.Errorf("the live catalog equals the cached one, yet catalog events came: %+v", evs)
	}
}

// A live catalog that differs from the cached one is announced as the
// difference, and the cache keeps the new one.
func TestCatalogCache_ALiveCatalogThatDiffersIsAChange(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir, config := t.TempDir(), configFor(t, "a")
	warmCache(t, ctx, dir, config, map[string]func() *mcp.Server{"a": toolServer(tool("echo", "old"), tool("gone", "g"))})

	held := newHeldServers(t, map[string]func() *mcp.Server{"a": toolServer(tool("echo", "new"), tool("add", "a"))})
	sup, rec := startWithDial(t, quartz.NewMock(t).WithLogger(quartz.NoOpLogger), held.dial, actors.Options{ConfigPaths: []string{config}, CacheDir: dir})
	start, _ := rec.WaitState(ctx, 0, "a", messages.StateStarting)
	rec.WaitFor(ctx, start, "cached tools", func(e messages.Event) bool { tc, ok := e.(*messages.ToolsChanged); return ok && tc.Server == "a" })
	if diff := cmp.Diff([]string{"a__echo", "a__gone"}, toolNames(sup.Tools())); diff != "" {
		t.Fatalf("cached tools (-want +got):\n%s", diff)
	}
	held.release()
	ready, _ := rec.WaitState(ctx, start, "a", messages.StateReady)
	_, ev := rec.WaitFor(ctx, ready, "the change", func(e messages.Event) bool { tc, ok := e.(*messages.ToolsChanged); return ok && tc.Server == "a" })
	tc := ev.(*messages.ToolsChanged)
	got := map[string][]string{"added": tc.Added, "removed": tc.Removed, "changed": tc.Changed}
	want := map[string][]string{"added": {"add"}, "removed": {"gone"}, "changed": {"echo"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("change from the cached catalog to the live one (-want +got):\n%s", diff)
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	files := cacheFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	data, _ := os.ReadFile(files[0])
	if !bytes.Contains(data, []byte(`"add"`)) || bytes.Contains(data, []byte(`"gone"`)) {
		t.Errorf("cache entry not rewritten with the live catalog:\n%s", data)
	}
}

// An entry is shown only for the fingerprint it was listed under: once
// the config changes what the session runs, the server starts with
// nothing listed, and the stale entry is removed.
func TestCatalogCache_AFingerprintChangeInvalidatesTheEntry(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	config := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, config, map[string]any{"a": map[string]any{"command": "in-memory", "env": map[string]string{"MODE": "one"}}})
	mk := map[string]func() *mcp.Server{"a": toolServer(tool("echo", "e"))}
	warmCache(t, ctx, dir, config, mk)

	writeConfig(t, config, map[string]any{"a": map[string]any{"command": "in-memory", "env": map[string]string{"MODE": "two"}}})
	held := newHeldServers(t, mk)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	sup, rec := startWithDial(t, mClock, held.dial, actors.Options{ConfigPaths: []string{config}, CacheDir: dir})
	start, _ := rec.WaitState(ctx, 0, "a", messages.StateStarting)
	actorstest.Barrier(ctx, t, sup, actorstest.Fleet)
	if tools := sup.Tools(); len(tools) != 0 {
		t.Errorf("tools of a changed config while starting: %+v, want none", tools)
	}
	if row := sup.Status().Servers[0]; row.Cached {
		t.Errorf("status row %+v: cached under another fingerprint", row)
	}
	if evs := catalogEventsOf(rec.Since(start), "a"); len(evs) != 0 {
		t.Errorf("catalog events for a stale entry: %+v", evs)
	}
	if err := sup.Close(); err != nil { // the writer has removed the entry
		t.Fatal(err)
	}
	if files := cacheFiles(t, dir); len(files) != 0 {
		t.Errorf("stale entry kept: %v", files)
	}
}

// Files in the cache that are not entries (not JSON, another version, an
// entry for another server than its name says) are removed with a
// warning, not skipped at every start; what is no entry file (a .txt, a
// directory) is left alone. The server starts as if nothing was cached,
// and its entry is written once it is up.
func TestCatalogCache_CorruptAndForeignFilesAreIgnored(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir, config := t.TempDir(), configFor(t, "a")
	warmCache(t, ctx, dir, config, map[string]func() *mcp.Server{"a": toolServer(tool("echo", "e"))})
	files := cacheFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	entry, _ := os.ReadFile(files[0])
	var other map[string]any
	if err := json.Unmarshal(entry, &other); err != nil {
		t.Fatal(err)
	}
	other["version"] = 99
	future, _ := json.Marshal(other)
	other["version"], other["server"] = 1, "b"
	foreign, _ := json.Marshal(other)
	catalogs := filepath.Join(dir, "catalogs")
	for name, data := range map[string][]byte{
		filepath.Base(files[0]):   []byte(`{"version":1,"server":"a","tools":[{"name":`), // cut short
		"future.json":             future,
		"b-0000000000000000.json": foreign,
		"notes.txt":               []byte("not mine"),
	} {
		if err := os.WriteFile(filepath.Join(catalogs, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(catalogs, "sub.json"), 0o700); err != nil {
		t.Fatal(err)
	}

	core, logs := observer.New(zapcore.WarnLevel)
	sup, rec := startInMemory(t, quartz.NewMock(t).WithLogger(quartz.NoOpLogger), newFleet(t, map[string]func() *mcp.Server{"a": toolServer(tool("echo", "e"))}),
		actors.Options{ConfigPaths: []string{config}, CacheDir: dir, Logger: zap.New(core)})
	start, _ := rec.WaitState(ctx, 0, "a", messages.StateStarting)
	if row := sup.Status().Servers[0]; row.Cached {
		t.Errorf("status row %+v: a corrupt entry shown", row)
	}
	ready, _ := rec.WaitState(ctx, start, "a", messages.StateReady)
	_, ev := rec.WaitFor(ctx, ready, "the live tools", func(e messages.Event) bool { tc, ok := e.(*messages.ToolsChanged); return ok && tc.Server == "a" })
	if tc := ev.(*messages.ToolsChanged); !slices.Equal(tc.Added, []string{"echo"}) {
		t.Errorf("live tools announced %+v, want echo added", tc)
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	if n := logs.FilterMessage("catalog cache entry removed").Len(); n != 3 {
		t.Errorf("%d warnings about removed entries, want 3 (cut short, future version, foreign):\n%v", n, logs.All())
	}
	for _, gone := range []string{"future.json", "b-0000000000000000.json"} {
		if _, err := os.Stat(filepath.Join(catalogs, gone)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want it removed", gone, err)
		}
	}
	for _, kept := range []string{"notes.txt", "sub.json"} {
		if _, err := os.Stat(filepath.Join(catalogs, kept)); err != nil {
			t.Errorf("%s: %v, want it left alone", kept, err)
		}
	}
	data, _ := os.ReadFile(files[0])
	if !json.Valid(data) || !bytes.Contains(data, []byte(`"echo"`)) {
		t.Errorf("entry not rewritten once the server was up:\n%s", data)
	}
}

// The cache holds the catalog and nothing of the config: no env value,
// header value or URL credential, not even hashed into the file name.
// A catalog that holds one of its server's own secrets (a server that
// lists its token) is cached as every answer shows it: redacted.
func TestCatalogCache_HoldsNoSecret(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	const envSecret, headerSecret, urlSecret, echoed = "PLANTED-ENV-SECRET-4a1f", "PLANTED-HEADER-SECRET-9c2e", "PLANTED-URL-SECRET-7d3b", "PLANTED-ECHOED-SECRET-5e8a"
	config := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, config, map[string]any{
		"local":  map[string]any{"command": "in-memory", "env": map[string]string{"API_TOKEN": envSecret}},
		"remote": map[string]any{"type": "http", "url": "https://mcp.example/mcp?key=" + urlSecret, "headers": map[string]string{"Authorization": "Bearer " + headerSecret}},
		"leaky":  map[string]any{"command": "in-memory", "env": map[string]string{"LEAKY_TOKEN": echoed}},
	})
	core, logs := observer.New(zapcore.WarnLevel)
	sup, rec := startInMemory(t, quartz.NewMock(t).WithLogger(quartz.NoOpLogger), newFleet(t, map[string]func() *mcp.Server{
		"local":  toolServer(tool("echo", "e")),
		"remote": toolServer(tool("fetch", "f")),
		"leaky":  toolServer(tool("whoami", "uses "+echoed)),
	}), actors.Options{ConfigPaths: []string{config}, CacheDir: dir, Logger: zap.New(core)})
	for _, name := range []string{"local", "remote", "leaky"} {
		rec.WaitState(ctx, 0, name, messages.StateReady)
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	files := cacheFiles(t, dir)
	if len(files) != 3 {
		t.Fatalf("cache files %v, want local's, remote's and leaky's (redacted)", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{envSecret, headerSecret, urlSecret, echoed, "API_TOKEN", "Bearer", "mcp.example", "in-memory"} {
			if strings.Contains(f, secret) || bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds %q:\n%s", f, secret, data)
			}
		}
		if strings.Contains(f, "leaky") && !bytes.Contains(data, []byte("uses "+redact.Mark)) {
			t.Errorf("%s: leaky's description not redacted:\n%s", f, data)
		}
		info, _ := os.Stat(f)
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", f, info.Mode().Perm())
		}
	}
	if info, _ := os.Stat(filepath.Join(dir, "catalogs")); info.Mode().Perm() != 0o700 {
		t.Errorf("cache directory mode %v, want 0700", info.Mode().Perm())
	}
	if warned := logs.FilterMessageSnippet("not cached").All(); len(warned) != 0 {
		t.Errorf("warnings %v, want none: the catalog was redacted before it was cached", warned)
	}
	for _, e := range logs.All() {
		if strings.Contains(e.Message+toString(e.ContextMap()), echoed) {
			t.Errorf("a log line holds the secret: %v", e)
		}
	}
}

func toString(m map[string]any) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// With the cache off ("-"), nothing is written: not under the default
// directory (this package's tests keep XDG_CACHE_HOME in a temporary
// one), not in a directory named "-".
func TestCatalogCache_Off(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	config := configFor(t, "a")
	sup, rec := startInMemory(t, quartz.NewMock(t).WithLogger(quartz.NoOpLogger), newFleet(t, map[string]func() *mcp.Server{"a": toolServer(tool("echo", "e"))}),
		actors.Options{ConfigPaths: []string{config}, CacheDir: "-"})
	rec.WaitState(ctx, 0, "a", messages.StateReady)
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`the cache wrote into a directory named "-"`)
	}
	files, _ := filepath.Glob(filepath.Join(actors.DefaultCacheDir(os.LookupEnv, ""), "catalogs", "a-*.json"))
	for _, f := range files {
		if data, _ := os.ReadFile(f); bytes.Contains(data, []byte(strconv.Quote(config))) {
			t.Errorf("%s: the cache wrote despite being off:\n%s", f, data)
		}
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		home string
		want string
	}{
		{"xdg", map[string]string{"XDG_CACHE_HOME": "/xdg/cache"}, "/home/u", "/xdg/cache/mcpvisor"},
		{"relative xdg is ignored", map[string]string{"XDG_CACHE_HOME": "cache"}, "/home/u", "/home/u/.cache/mcpvisor"},
		{"home", nil, "/home/u", "/home/u/.cache/mcpvisor"},
		{"neither: off", nil, "", "-"},
	} {
		if got := actors.DefaultCacheDir(env(tc.env), tc.home); got != tc.want {
			t.Errorf("%s: DefaultCacheDir = %q, want %q", tc.name, got, tc.want)
		}
	}
}
