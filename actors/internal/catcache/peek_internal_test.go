package catcache

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.uber.org/zap"
)

// Peek reads what the cache holds and changes nothing: a stale file stays
// (Open would remove it), and an empty directory gets no key.
func TestCatalogCache_PeekChangesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if got := Peek(dir, MaxEntryBytes); len(got) != 0 {
		t.Fatalf("an empty directory peeks as %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, cacheSubdir)); !os.IsNotExist(err) {
		t.Fatalf("Peek made the cache directory (stat: %v)", err)
	}
	runCache(t, dir, MaxEntryBytes, MaxTotalBytes, zap.NewNop(), func(c *Cache) {
		c.Store(specFor("b"), entryFor("b", 10), nil)
		c.Store(specFor("a"), entryFor("a", 10), nil)
	})
	stale := filepath.Join(dir, cacheSubdir, "stale-0000.json")
	if err := os.WriteFile(stale, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := Peek(dir, MaxEntryBytes)
	var servers []string
	for _, e := range got {
		servers = append(servers, e.Server)
	}
	if !slices.Equal(servers, []string{"a", "b"}) || len(got[0].Tools) != 1 {
		t.Fatalf("peeked %v, want a's and b's entries", got)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("Peek removed a stale file: %v", err)
	}
}
