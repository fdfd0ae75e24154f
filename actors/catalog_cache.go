package actors

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// The catalog cache on disk: each server's last live catalog (tools,
// prompts, resources, resource templates: names, descriptions, schemas,
// annotations, URIs, as the server listed them) in one JSON file per
// server, so that the next start can list a server before it is up. It
// holds nothing of the config: no command, env, headers or URL; only the
// server's name, the config file that declares it and a hash of its
// fingerprint, which is what a cached catalog must match to be shown.
//
// The directory is read once, in Start. Writes and removals go to one
// writer goroutine, newest per file (a burst of re-lists costs one
// write), each written to a temporary file and renamed over the entry
// (0600 in a 0700 directory), so a reader never sees half an entry. An
// entry past MaxCachedCatalogBytes is not written (and the old one is
// removed: the cache holds the last catalog or none), and the oldest
// entries go once all of them pass MaxCatalogCacheBytes. A file that
// cannot be read, is not JSON, is of another version or lies about the
// server it is for is ignored with a warning.

// Bounds on the catalog cache.
const (
	// MaxCachedCatalogBytes bounds one server's entry, as JSON: a larger
	// catalog is not cached.
	MaxCachedCatalogBytes = 4 << 20
	// MaxCatalogCacheBytes bounds all entries: past it, the entries
	// written longest ago are removed.
	MaxCatalogCacheBytes = 64 << 20
)

// cacheVersion is the entry format; entries of another are ignored.
const cacheVersion = 1

// cacheSubdir is the cache's directory under Options.CacheDir.
const cacheSubdir = "catalogs"

// cacheEntry is one entry as it is on disk: a server's catalog as its
// last live session listed it (tools before the tool filters, nothing
// stamped with a prefix), and what it was listed under.
type cacheEntry struct {
	Version int    `json:"version"`
	Server  string `json:"server"`
	// Source is the config file that declared the server.
	Source string `json:"source"`
	// Key is reconciler.CatalogKey of the session's fingerprint.
	Key       string                      `json:"key"`
	Tools     []messages.Tool             `json:"tools"`
	Prompts   []messages.Prompt           `json:"prompts"`
	Resources []messages.Resource         `json:"resources"`
	Templates []messages.ResourceTemplate `json:"resourceTemplates"`
}

func entryOf(c reconciler.CachedCatalog) *cacheEntry {
	return &cacheEntry{Version: cacheVersion, Server: c.Server, Source: c.Source, Key: c.Key,
		Tools: c.Tools, Prompts: c.Prompts, Resources: c.Resources, Templates: c.Templates}
}

func (e *cacheEntry) catalog() reconciler.CachedCatalog {
	return reconciler.CachedCatalog{Server: e.Server, Source: e.Source, Key: e.Key,
		Tools: e.Tools, Prompts: e.Prompts, Resources: e.Resources, Templates: e.Templates}
}

// cacheFile is the file name of a server's entry: readable, and unique
// per server name and declaring config file.
func cacheFile(server, source string) string {
	sum := sha256.Sum256([]byte(source + "\x00" + server))
	var b strings.Builder
	for i, r := range server {
		if i >= 48 {
			break
		}
		if r < 0x80 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return strings.TrimLeft(b.String(), ".") + "-" + hex.EncodeToString(sum[:8]) + ".json"
}

// catalogCache is the cache directory and its writer. The reconciler
// hands it the entries the fleet asks to keep (store) and to forget
// (remove); neither blocks. Close (Supervisor.Close, once the actors have stopped) lets the
// writer finish what is pending and end; the environment's WaitGroup
// counts it.
type catalogCache struct {
	dir             string
	maxEntry, total int
	log             *zap.Logger

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
	// header values, URL credentials, mcpvisor's own tokens.
	secrets *reconciler.Redactor
}

type cacheFileSize struct {
	size int
	seq  uint64
}

// openCatalogCache reads every entry of dir/catalogs (a missing directory
// is an empty cache) and returns the cache with the entries. Nothing it
// finds is fatal: a file it cannot use is skipped with a warning.
func openCatalogCache(dir string, maxEntry, total int, log *zap.Logger) (*catalogCache, []reconciler.CachedCatalog) {
	c := &catalogCache{
		dir: filepath.Join(dir, cacheSubdir), maxEntry: maxEntry, total: total, log: log.Named("catalog-cache"),
		pending: map[string]cacheOp{}, wake: make(chan struct{}, 1), sizes: map[string]cacheFileSize{},
	}
	return c, c.load()
}

func (c *catalogCache) load() []reconciler.CachedCatalog {
	var out []reconciler.CachedCatalog
	dirents, err := os.ReadDir(c.dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log.Warn("catalog cache unreadable; starting without it", zap.String("dir", c.dir), zap.Error(err))
		}
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
		e, err := c.read(f.name)
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

// errForeignEntry: a file in the cache directory that is not an entry of
// this version for the server its name says.
var errForeignEntry = errors.New("not a catalog cache entry of this version")

func (c *catalogCache) read(name string) (*cacheEntry, error) {
	data, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil {
		return nil, err
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	if e.Version != cacheVersion || e.Server == "" || e.Key == "" || cacheFile(e.Server, e.Source) != name {
		return nil, errForeignEntry
	}
	return &e, nil
}

// store queues a write of what a session of spec listed, unless it holds
// one of spec's secrets or of own (mcpvisor's tokens).
func (c *catalogCache) store(spec messages.ServerSpec, entry reconciler.CachedCatalog, own []string) {
	c.queue(cacheFile(entry.Server, entry.Source), cacheOp{entry: entryOf(entry), secrets: cacheSecrets(spec, own)})
}

// remove queues the removal of server's entry, as source declares it.
func (c *catalogCache) remove(server, source string) { c.queue(cacheFile(server, source), cacheOp{}) }

// minCacheSecretBytes is the shortest config value that keeps a catalog
// holding it out of the cache: shorter ones ("true", "debug") are words
// any description may hold.
const minCacheSecretBytes = 8

// cacheSecrets finds what no cache entry may hold: the spec's env and
// header values, URL credentials and literal credentials (at least
// minCacheSecretBytes), and mcpvisor's own tokens.
func cacheSecrets(spec messages.ServerSpec, own []string) *reconciler.Redactor {
	secrets := slices.DeleteFunc(append(reconciler.SecretsOf(spec), own...), func(s string) bool { return len(s) < minCacheSecretBytes })
	return reconciler.NewRedactor(secrets...)
}

func (c *catalogCache) queue(file string, op cacheOp) {
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

// run is the writer goroutine: it carries out what is pending until the
// cache is closed and nothing is.
func (c *catalogCache) run() {
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

// close stops taking work; the writer ends once it wrote what was pending.
func (c *catalogCache) close() {
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

func (c *catalogCache) apply(file string, op cacheOp) {
	if op.entry == nil {
		c.drop(file)
		return
	}
	data, err := json.Marshal(op.entry)
	switch {
	case err != nil:
		c.log.Warn("catalog not cached", zap.String("server", op.entry.Server), zap.Error(err))
		c.drop(file)
		return
	case len(data) > c.maxEntry:
		c.log.Debug("catalog too large to cache", zap.String("server", op.entry.Server), zap.Int("bytes", len(data)), zap.Int("bound", c.maxEntry))
		c.drop(file)
		return
	case op.secrets.Contains(string(data)):
		c.log.Warn("catalog holds a value of the server's config (env, header, URL) or a token; not cached", zap.String("server", op.entry.Server))
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
func (c *catalogCache) evictFor(file string, size int) {
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

// write replaces file with data atomically: a temporary file (0600) in
// the same directory, renamed over it.
func (c *catalogCache) write(file string, data []byte) error {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, ".catalog-*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(c.dir, file)); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}

func (c *catalogCache) drop(file string) {
	delete(c.sizes, file)
	if err := os.Remove(filepath.Join(c.dir, file)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.log.Warn("catalog cache entry not removed", zap.String("file", file), zap.Error(err))
	}
}

// DefaultCacheDir is the catalog cache's directory when Options.CacheDir
// is empty: $XDG_CACHE_HOME/mcpvisor when XDG_CACHE_HOME is an absolute
// path, else home/.cache/mcpvisor; "-" (off) when neither is known.
func DefaultCacheDir(lookup func(string) (string, bool), home string) string {
	if v, _ := lookup("XDG_CACHE_HOME"); filepath.IsAbs(v) {
		return filepath.Join(v, "mcpvisor")
	}
	if home == "" {
		return "-"
	}
	return filepath.Join(home, ".cache", "mcpvisor")
}

// startCatalogCache opens the cache Options.CacheDir names (none for "-")
// and starts its writer, counted in the environment's WaitGroup;
// Supervisor.Close ends it.
func (e *environment) startCatalogCache() {
	if e.opts.CacheDir == "-" {
		return
	}
	e.catalogs, e.cachedCatalogs = openCatalogCache(e.opts.CacheDir, e.opts.cacheEntryBytes, e.opts.cacheTotalBytes, e.log)
	e.work.Add(1)
	go func() {
		defer e.work.Done()
		e.catalogs.run()
	}()
}
