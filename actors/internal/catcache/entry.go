package catcache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// cacheVersion is the entry format; entries of another are ignored.
// Version 2 entries are sealed (seal.go).
const cacheVersion = 2

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

// listed is what the server listed, as JSON text: what the secrets check
// looks at. Not the config file's path (Source) nor the key: they say where
// the entry came from, and the path is often a value of mcpvisor's own
// environment (MCPVISOR_CONFIG=FILE), which would keep every catalog of
// that file out of the cache.
func (e *cacheEntry) listed() string {
	data, err := json.Marshal(struct {
		Tools     []messages.Tool             `json:"tools"`
		Prompts   []messages.Prompt           `json:"prompts"`
		Resources []messages.Resource         `json:"resources"`
		Templates []messages.ResourceTemplate `json:"resourceTemplates"`
	}{e.Tools, e.Prompts, e.Resources, e.Templates})
	if err != nil {
		return ""
	}
	return string(data)
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

// MinSecretBytes is the shortest secret that keeps a catalog holding it
// out of the cache (and that a listed catalog is redacted of): shorter
// ones ("true", "debug") are words any description or schema may hold.
const MinSecretBytes = 8

// cacheSecrets finds what no cache entry may hold: the spec's env and
// header values, URL credentials and literal credentials (at least
// MinSecretBytes), and mcpvisor's own tokens.
func cacheSecrets(spec messages.ServerSpec, own []string) *redact.Redactor {
	secrets := slices.DeleteFunc(append(config.SecretsOf(spec), own...), func(s string) bool { return len(s) < MinSecretBytes })
	return redact.New(secrets...)
}

// errForeignEntry: a file in the cache directory that is not an entry of
// this version for the server its name says.
var errForeignEntry = errors.New("not a catalog cache entry of this version")

// readEntry reads the entry file name of the cache: one the user owns
// and others cannot write (ondisk.CheckFile), sealed with their key.
func (c *Cache) readEntry(name string) (*cacheEntry, error) {
	path := filepath.Join(c.dir, name)
	f, err := ondisk.OpenChecked(path, ondisk.NotWritable)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	file, err := io.ReadAll(io.LimitReader(f, int64(c.maxEntry)+1))
	if err != nil {
		return nil, err
	}
	e, err := c.decodeEntry(file, name)
	if err != nil {
		return nil, &staleEntryError{err}
	}
	return e, nil
}

// staleEntryError: a file of the user's own, in their checked cache
// directory, that is not an entry this version can serve (an older
// version's, one not sealed with the user's key, unreadable JSON). It
// would be skipped at every start, so it is removed.
type staleEntryError struct{ err error }

func (e *staleEntryError) Error() string { return e.err.Error() }
func (e *staleEntryError) Unwrap() error { return e.err }

// decodeEntry is the entry that file, the entry file name, holds.
func (c *Cache) decodeEntry(file []byte, name string) (*cacheEntry, error) {
	data, err := unseal(c.key, file)
	if err != nil {
		return nil, err
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	if err := keepSchemaBytes(data, &e); err != nil {
		return nil, err
	}
	if e.Version != cacheVersion || e.Server == "" || e.Key == "" || cacheFile(e.Server, e.Source) != name {
		return nil, errForeignEntry
	}
	return &e, nil
}

// keepSchemaBytes puts the tools' schemas back as the bytes the entry
// holds (json.RawMessage), as the live session listed them: decoded into
// maps, their keys would come back sorted, and the gateway's clients
// would see the arguments in another order than the server's.
func keepSchemaBytes(data []byte, e *cacheEntry) error {
	var raw struct {
		Tools []struct {
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if len(raw.Tools) != len(e.Tools) {
		return errors.New("tools do not decode alike")
	}
	for i, t := range raw.Tools {
		if e.Tools[i].InputSchema != nil {
			e.Tools[i].InputSchema = t.InputSchema
		}
		if e.Tools[i].OutputSchema != nil {
			e.Tools[i].OutputSchema = t.OutputSchema
		}
	}
	return nil
}
