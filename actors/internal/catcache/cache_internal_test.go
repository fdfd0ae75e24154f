package catcache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
func runCache(t *testing.T, dir string, maxEntry, total int, log *zap.Logger, ops func(c *Cache)) []reconciler.CachedCatalog {
	t.Helper()
	c, loaded := Open(dir, maxEntry, total, log)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run()
	}()
	ops(c)
	c.Close()
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
	runCache(t, dir, 1000, size*5/2, zap.NewNop(), func(cc *Cache) {
		cc.Store(specFor("a"), a, nil)
		cc.Store(specFor("b"), b, nil)
	})
	runCache(t, dir, 1000, size*5/2, zap.NewNop(), func(cc *Cache) { cc.Store(specFor("c"), c, nil) })
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
	loaded := runCache(t, dir, 1000, size*3/2, zap.NewNop(), func(*Cache) {})
	if len(loaded) != 1 || loaded[0].Server != "c" {
		t.Errorf("loaded %v, want only c (the newest within the total)", loaded)
	}
	if got := cachedFiles(t, dir); !slices.Equal(got, []string{fc}) {
		t.Errorf("files %v, want only c's", got)
	}

	core, logs := observer.New(zapcore.DebugLevel)
	runCache(t, dir, 1000, 10_000, zap.New(core), func(cc *Cache) { cc.Store(specFor("c"), entryFor("c", 2000), nil) })
	if got := cachedFiles(t, dir); len(got) != 0 {
		t.Errorf("files %v after an oversized write: want c's old entry removed, nothing written", got)
	}
	if n := logs.FilterMessage("catalog too large to cache").Len(); n != 1 {
		t.Errorf("%d debug lines about the oversized catalog, want 1", n)
	}
}
