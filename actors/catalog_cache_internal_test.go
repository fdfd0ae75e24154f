package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// entryFor is a small entry for server, about size bytes as JSON.
func entryFor(server string, size int) reconciler.CachedCatalog {
	return reconciler.CachedCatalog{Server: server, Source: "/cfg/mcp.json", Key: reconciler.CatalogKey("fp-" + server),
		Tools: []messages.Tool{{Server: server, Name: "t", Description: strings.Repeat("d", size), Hash: "h"}}}
}

// specFor is the spec entryFor's server runs (its secrets: none).
func specFor(server string) messages.ServerSpec {
	return messages.ServerSpec{Name: server, Source: messages.Position{Path: "/cfg/mcp.json"}}
}

func cachedFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, cacheSubdir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, n := range names {
		out = append(out, filepath.Base(n))
	}
	slices.Sort(out)
	return out
}

// runCache opens a cache on dir with the bounds, hands it ops, and waits
// for its writer to carry them out.
func runCache(t *testing.T, dir string, maxEntry, total int, log *zap.Logger, ops func(c *catalogCache)) []reconciler.CachedCatalog {
	t.Helper()
	c, loaded := openCatalogCache(dir, maxEntry, total, log)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.run()
	}()
	ops(c)
	c.close()
	<-done
	return loaded
}

// Past the total bound, the entries written longest ago are removed to
// make room: on write, and on read at start (newest kept). An entry
// past the per-entry bound is not written, with a debug line, and the
// server's previous entry goes with it.
func TestCatalogCache_SizeBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b, c := entryFor("a", 400), entryFor("b", 400), entryFor("c", 400)
	fb, fc := cacheFile("b", b.Source), cacheFile("c", c.Source)
	data, _ := json.Marshal(entryOf(a))
	size := len(data) // the three are the same size
	runCache(t, dir, 1000, size*5/2, zap.NewNop(), func(cc *catalogCache) {
		cc.store(specFor("a"), a, nil)
		cc.store(specFor("b"), b, nil)
	})
	runCache(t, dir, 1000, size*5/2, zap.NewNop(), func(cc *catalogCache) { cc.store(specFor("c"), c, nil) })
	want := []string{fb, fc}
	slices.Sort(want)
	if got := cachedFiles(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v (a, the oldest, evicted for c)", got, want)
	}

	// Read with a smaller total: only the newest fits.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, cacheSubdir, fb), old, old); err != nil {
		t.Fatal(err)
	}
	loaded := runCache(t, dir, 1000, size*3/2, zap.NewNop(), func(*catalogCache) {})
	if len(loaded) != 1 || loaded[0].Server != "c" {
		t.Errorf("loaded %v, want only c (the newest within the total)", loaded)
	}
	if got := cachedFiles(t, dir); !slices.Equal(got, []string{fc}) {
		t.Errorf("files %v, want only c's", got)
	}

	core, logs := observer.New(zapcore.DebugLevel)
	runCache(t, dir, 1000, 10_000, zap.New(core), func(cc *catalogCache) { cc.store(specFor("c"), entryFor("c", 2000), nil) })
	if got := cachedFiles(t, dir); len(got) != 0 {
		t.Errorf("files %v after an oversized write: want c's old entry removed, nothing written", got)
	}
	if n := logs.FilterMessage("catalog too large to cache").Len(); n != 1 {
		t.Errorf("%d debug lines about the oversized catalog, want 1", n)
	}
}

// A server whose catalog is past the entry bound runs as usual; its
// catalog is just not cached.
func TestCatalogCache_OversizedServerCatalogIsNotCached(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"small": {"command": "x"}, "big": {"command": "x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dial := func(spec messages.ServerSpec) (mcp.Transport, error) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		n := 1
		if spec.Name == "big" {
			n = 20
		}
		for i := range n {
			srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%02d", i), Description: strings.Repeat("d", 200), InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
		}
		st, ct := mcp.NewInMemoryTransports()
		_, err := srv.Connect(context.Background(), st, nil)
		return ct, err
	}
	core, logs := observer.New(zapcore.DebugLevel)
	sup, err := Start(Options{ConfigPaths: []string{cfg}, Dial: dial, DisableWatch: true, ProbeInterval: -1, Logger: zap.New(core),
		Clock: quartz.NewMock(t), CacheDir: dir, cacheEntryBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	feed := sup.Follow(0, 256)
	defer feed.Close()
	ready := map[string]bool{}
	for len(ready) < 2 {
		select {
		case env := <-feed.C:
			if sc, ok := env.Event.(*messages.ServerStateChanged); ok && sc.To == messages.StateReady {
				ready[sc.Server] = true
			}
		case <-ctx.Done():
			t.Fatalf("servers not ready: %v", ctx.Err())
		}
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	if got := cachedFiles(t, dir); len(got) != 1 || !strings.HasPrefix(got[0], "small-") {
		t.Errorf("cache files %v, want small's only", got)
	}
	if n := logs.FilterMessage("catalog too large to cache").FilterField(zap.String("server", "big")).Len(); n != 1 {
		t.Errorf("%d debug lines about big's catalog, want 1", n)
	}
}
