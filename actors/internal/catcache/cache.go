package catcache

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// Bounds on the catalog cache.
const (
	// MaxEntryBytes bounds one server's entry, as JSON: a larger catalog
	// is not cached.
	MaxEntryBytes = 4 << 20
	// MaxTotalBytes bounds all entries: past it, the entries written
	// longest ago are removed.
	MaxTotalBytes = 64 << 20
)

// Cache is the cache directory and its writer. The fleet actor hands it
// the entries the fleet asks to keep (Store) and to forget (Remove);
// neither blocks. Run is the writer; Close (Supervisor.Close, once the
// actors have stopped) lets it finish what is pending and end.
type Cache struct {
	dir             string
	maxEntry, total int
	log             *zap.Logger
	// key seals the entries (seal.go); nil until the directory has been
	// found to be the user's and its key read or made.
	key []byte

	mu      sync.Mutex
	pending map[string]cacheOp // by file: the newest write or removal
	closed  bool
	wake    chan struct{} // one pending wake-up at most

	// Of the writer goroutine only: the entries on disk, by file, and
	// which was written when (a counter), for the total bound.
	sizes map[string]cacheFileSize
	seq   uint64
}

// cacheOp is one write (entry set) or removal (entry nil) of a file.
type cacheOp struct {
	entry *cacheEntry
	// secrets finds what must never be cached: the server's env and
	// header values, URL credentials, mcpvisor's own tokens and the values
	// of the environment it inherited.
	secrets *redact.Redactor
}

type cacheFileSize struct {
	size int
	seq  uint64
}

// Open reads every entry of dir/catalogs (a missing directory is an
// empty cache) and returns the cache with the entries, bounded by
// maxEntry bytes each and total in all (MaxEntryBytes, MaxTotalBytes).
// Nothing it finds is fatal: a file it cannot use is skipped with a
// warning.
func Open(dir string, maxEntry, total int, log *zap.Logger) (*Cache, []reconciler.CachedCatalog) {
	c := &Cache{
		dir: filepath.Join(dir, cacheSubdir), maxEntry: maxEntry, total: total, log: log.Named("catalog-cache"),
		pending: map[string]cacheOp{}, wake: make(chan struct{}, 1), sizes: map[string]cacheFileSize{},
	}
	return c, c.load()
}

func (c *Cache) load() []reconciler.CachedCatalog {
	var out []reconciler.CachedCatalog
	dirents, err := os.ReadDir(c.dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log.Warn("catalog cache unreadable; starting without it", zap.String("dir", c.dir), zap.Error(err))
		}
		return out
	}
	if err := c.useDir(); err != nil {
		c.log.Warn("catalog cache refused; starting without it", zap.Error(err))
		return out
	}
	type found struct {
		name string
		info fs.FileInfo
	}
	var files []found
	for _, d := range dirents {
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".json") || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		files = append(files, found{d.Name(), info})
	}
	// Newest first: past the total bound, the oldest are dropped.
	slices.SortFunc(files, func(a, b found) int {
		return cmp.Or(b.info.ModTime().Compare(a.info.ModTime()), strings.Compare(a.name, b.name))
	})
	used := 0
	for i, f := range files {
		size := int(f.info.Size())
		if size > c.maxEntry || used+size > c.total {
			c.log.Debug("catalog cache entry past the bound; removed", zap.String("file", f.name), zap.Int("bytes", size))
			_ = os.Remove(filepath.Join(c.dir, f.name))
			continue
		}
		e, err := c.readEntry(f.name)
		var stale *staleEntryError
		if errors.As(err, &stale) {
			c.log.Warn("catalog cache entry removed", zap.String("file", f.name), zap.Error(err))
			_ = os.Remove(filepath.Join(c.dir, f.name))
			continue
		}
		if err != nil {
			c.log.Warn("catalog cache entry ignored", zap.String("file", f.name), zap.Error(err))
			continue
		}
		used += size
		out = append(out, e.catalog())
		c.sizes[f.name] = cacheFileSize{size: size, seq: uint64(len(files) - i)}
	}
	c.seq = uint64(len(files))
	return out
}

// Store queues a write of what a session of spec listed, unless it holds
// one of spec's secrets or of own (mcpvisor's tokens, the values of its
// inherited environment).
func (c *Cache) Store(spec messages.ServerSpec, entry reconciler.CachedCatalog, own []string) {
	c.queue(cacheFile(entry.Server, entry.Source), cacheOp{entry: entryOf(entry), secrets: cacheSecrets(spec, own)})
}

// Remove queues the removal of server's entry, as source declares it.
func (c *Cache) Remove(server, source string) { c.queue(cacheFile(server, source), cacheOp{}) }

func (c *Cache) queue(file string, op cacheOp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.pending[file] = op
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Run is the writer goroutine: it carries out what is pending until the
// cache is closed and nothing is.
func (c *Cache) Run() {
	for range c.wake {
		c.mu.Lock()
		ops, closed := c.pending, c.closed
		c.pending = map[string]cacheOp{}
		c.mu.Unlock()
		for _, file := range slices.Sorted(maps.Keys(ops)) {
			c.apply(file, ops[file])
		}
		if closed {
			return
		}
	}
}

// Close stops taking work; the writer ends once it wrote what was pending.
func (c *Cache) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *Cache) apply(file string, op cacheOp) {
	if op.entry == nil {
		c.drop(file)
		return
	}
	data, err := json.Marshal(op.entry)
	if err == nil && op.secrets.Contains(op.entry.listed()) {
		c.log.Warn("catalog holds a value of the server's config (env, header, URL), of mcpvisor's environment or a token; not cached", zap.String("server", op.entry.Server))
		c.drop(file)
		return
	}
	if err == nil {
		data, err = c.seal(data)
	}
	switch {
	case err != nil:
		c.log.Warn("catalog not cached", zap.String("server", op.entry.Server), zap.Error(err))
		c.drop(file)
		return
	case len(data) > c.maxEntry:
		c.log.Debug("catalog too large to cache", zap.String("server", op.entry.Server), zap.Int("bytes", len(data)), zap.Int("bound", c.maxEntry))
		c.drop(file)
		return
	}
	c.evictFor(file, len(data))
	if err := c.write(file, data); err != nil {
		c.log.Warn("catalog not cached", zap.String("server", op.entry.Server), zap.Error(err))
		c.drop(file)
		return
	}
	c.seq++
	c.sizes[file] = cacheFileSize{size: len(data), seq: c.seq}
}

// evictFor removes the entries written longest ago (file aside) until
// size more bytes fit the total bound.
func (c *Cache) evictFor(file string, size int) {
	used := size
	for f, s := range c.sizes {
		if f != file {
			used += s.size
		}
	}
	for used > c.total {
		oldest := ""
		for f, s := range c.sizes {
			if f != file && (oldest == "" || s.seq < c.sizes[oldest].seq) {
				oldest = f
			}
		}
		if oldest == "" {
			return
		}
		used -= c.sizes[oldest].size
		c.log.Debug("catalog cache full; oldest entry removed", zap.String("file", oldest))
		c.drop(oldest)
	}
}

// useDir checks that the cache directory is the user's alone and reads
// (or makes) the key that seals its entries. Until it succeeds nothing
// is read from the directory or written to it.
func (c *Cache) useDir() error {
	if c.key != nil {
		return nil
	}
	if err := ondisk.CheckDir(c.dir); err != nil {
		return fmt.Errorf("catalog cache %w", err)
	}
	key, err := readOrCreateKey(c.dir)
	if err != nil {
		return err
	}
	c.key = key
	return nil
}

// seal is the file that holds data: the entry sealed with the user's
// key, the directory made (0700) and checked first.
func (c *Cache) seal(data []byte) ([]byte, error) {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, err
	}
	if err := c.useDir(); err != nil {
		return nil, err
	}
	return seal(c.key, data), nil
}

// write replaces file with data atomically (ondisk.WritePrivate).
func (c *Cache) write(file string, data []byte) error {
	return ondisk.WritePrivate(filepath.Join(c.dir, file), data)
}

func (c *Cache) drop(file string) {
	delete(c.sizes, file)
	if err := os.Remove(filepath.Join(c.dir, file)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.log.Warn("catalog cache entry not removed", zap.String("file", file), zap.Error(err))
	}
}

// DefaultDir is the catalog cache's directory when Options.CacheDir is
// empty: $XDG_CACHE_HOME/mcpvisor when XDG_CACHE_HOME is an absolute
// path, else home/.cache/mcpvisor; "-" (off) when neither is known.
func DefaultDir(lookup func(string) (string, bool), home string) string {
	if v, _ := lookup("XDG_CACHE_HOME"); filepath.IsAbs(v) {
		return filepath.Join(v, "mcpvisor")
	}
	if home == "" {
		return "-"
	}
	return filepath.Join(home, ".cache", "mcpvisor")
}
