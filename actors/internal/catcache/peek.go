package catcache

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// Peek reads the entries of dir's cache without changing anything, for
// commands that only look (`mcpvisor check` judges cached tool names): no
// entry is removed, however stale, no key is made, and nothing is logged.
// A directory or key that is not the user's alone, or no key at all,
// reads as no entries; an entry that cannot be used (over maxEntry bytes,
// unsealed, another version's) is skipped. Entries come sorted by server.
func Peek(dir string, maxEntry int) []reconciler.CachedCatalog {
	c := &Cache{dir: filepath.Join(dir, cacheSubdir), maxEntry: maxEntry, log: zap.NewNop()}
	dirents, err := os.ReadDir(c.dir)
	if err != nil || ondisk.CheckDir(c.dir) != nil {
		return nil
	}
	if c.key, err = readKey(filepath.Join(c.dir, keyFile)); err != nil {
		return nil
	}
	var out []reconciler.CachedCatalog
	for _, d := range dirents {
		if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".json") || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		if e, err := c.readEntry(d.Name()); err == nil {
			out = append(out, e.catalog())
		}
	}
	slices.SortFunc(out, func(a, b reconciler.CachedCatalog) int { return strings.Compare(a.Server, b.Server) })
	return out
}
