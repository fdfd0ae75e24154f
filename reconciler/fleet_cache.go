package reconciler

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The catalog cache: each server's last live catalog, kept by the shell
// between runs (on disk), so that a server can be listed before it is up.
// The shell only reads and writes it; what is shown, when, and what that
// announces are the fleet's rules:
//
//	situation                                          rule
//	the shell read the cache at start (CacheLoaded)    the cache is on; its entries are known
//	a server not up yet: pending, starting or idle,    its row lists the entry of its spec (same name,
//	on its first attempt, listing no catalog of        config file and fingerprint), items and row
//	its own                                            marked Cached, under its tool filters and prefix
//	an eager server showing its entry                  listed, not routable: a request is not ready
//	a lazy server showing its entry                    routable as its own catalog would be: a use
//	                                                   starts it; it is not started just to list it
//	a failed server (attempt > 0)                      shows nothing until it is up again, so a crash
//	                                                   loop does not flap its tools in every client
//	the live catalog comes                             announced as the difference from what was shown:
//	                                                   the same catalog announces nothing
//	a session's listing is taken (ready, re-list)      the entry becomes that catalog; if it differs
//	                                                   from what the shell holds: CacheCatalog
//	a desired spec no longer matches its entry         the entry is dropped: ForgetCatalog
//
// Every catalog event (ToolsChanged, PromptsChanged, ResourcesChanged,
// ResourceTemplatesChanged) is the difference between what a server's
// row listed when the last one was published and what it lists now,
// whether that came from a session or from the cache. Resource routing
// (claims, conflicts, shadowing) follows live catalogs only.

// CachedCatalog is one server's catalog as a session of it listed it:
// tools as listed (before the tool filters), prompts (with no prefix),
// resources and resource templates, and what it was listed under. Nobody
// mutates one once built.
type CachedCatalog struct {
	Server string
	// Source is the config file that declared the server.
	Source string
	// Key is CatalogKey of the listing session's fingerprint.
	Key       string
	Tools     []messages.Tool
	Prompts   []messages.Prompt
	Resources []messages.Resource
	Templates []messages.ResourceTemplate
}

// CatalogKey is what a catalog is kept under for a spec's fingerprint: a
// hash of it, so that nothing kept names a value the fingerprint covers.
func CatalogKey(fingerprint string) string {
	sum := sha256.Sum256([]byte("mcpvisor/catalog-cache/v1\x00" + fingerprint))
	return hex.EncodeToString(sum[:16])
}

// CacheLoaded is the catalog cache as the shell read it at start; it
// turns the cache on (a fleet never stepped with one keeps no cache and
// asks for no writes). Step it before anything else.
type CacheLoaded struct {
	Entries []CachedCatalog
}

// CacheCatalog asks the shell to keep Entry, the catalog a session of
// Spec listed, in place of what it holds for the same server and config
// file (unless it holds one of Spec's secrets: the shell checks).
type CacheCatalog struct {
	Spec  messages.ServerSpec
	Entry CachedCatalog
}

// ForgetCatalog asks the shell to drop what it holds for Server as
// declared in Source.
type ForgetCatalog struct {
	Server, Source string
}

func (CacheLoaded) isInput()    {}
func (CacheCatalog) isEffect()  {}
func (ForgetCatalog) isEffect() {}

// catalogCache is the fleet's knowledge of the cache; nil when it is off.
type catalogCache struct {
	entries map[cacheID]*CachedCatalog // the newest known entry, items marked Cached
	stored  map[cacheID]string         // digest of what the shell holds, or was asked to
}

// cacheID names an entry: a server as one config file declares it.
type cacheID struct{ server, source string }

func idOf(spec messages.ServerSpec) cacheID { return cacheID{spec.Name, spec.Source.Path} }

func (f *Fleet) cacheLoaded(m CacheLoaded) {
	c := &catalogCache{entries: map[cacheID]*CachedCatalog{}, stored: map[cacheID]string{}}
	for _, e := range m.Entries {
		id := cacheID{e.Server, e.Source}
		c.entries[id] = markedCopy(e)
		c.stored[id] = e.digest()
	}
	f.cache = c
}

// matches reports whether the entry may be shown for spec.
func (e *CachedCatalog) matches(spec messages.ServerSpec) bool {
	return e != nil && e.Server == spec.Name && e.Source == spec.Source.Path && e.Key == CatalogKey(spec.Fingerprint)
}

// digest identifies the entry's content: equal digests, equal entries.
func (e *CachedCatalog) digest() string {
	h := sha256.New()
	w := func(s string) { h.Write([]byte(s)); h.Write([]byte{0}) }
	w(e.Key)
	for _, t := range e.Tools {
		w(t.Name)
		w(t.Hash)
	}
	w("\x01")
	for _, p := range e.Prompts {
		w(p.Name)
		w(p.Hash)
	}
	w("\x01")
	for _, r := range e.Resources {
		w(r.URI)
		w(r.Hash)
	}
	w("\x01")
	for _, t := range e.Templates {
		w(t.URITemplate)
		w(t.Hash)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// markedCopy is e with every item copied and marked Cached, as a row
// shows it.
func markedCopy(e CachedCatalog) *CachedCatalog {
	out := e
	out.Tools, out.Prompts = slices.Clone(e.Tools), slices.Clone(e.Prompts)
	out.Resources, out.Templates = slices.Clone(e.Resources), slices.Clone(e.Templates)
	for i := range out.Tools {
		out.Tools[i].Cached, out.Tools[i].Server = true, e.Server
	}
	for i := range out.Prompts {
		out.Prompts[i].Cached, out.Prompts[i].Server = true, e.Server
	}
	for i := range out.Resources {
		out.Resources[i].Cached, out.Resources[i].Server = true, e.Server
	}
	for i := range out.Templates {
		out.Templates[i].Cached, out.Templates[i].Server = true, e.Server
	}
	return &out
}

// forgetStale drops the entries that no longer match their server's
// desired spec.
func (f *Fleet) forgetStale(specs []messages.ServerSpec) {
	if f.cache == nil {
		return
	}
	for _, spec := range specs {
		id := idOf(spec)
		if e := f.cache.entries[id]; e != nil && !e.matches(spec) {
			delete(f.cache.entries, id)
			delete(f.cache.stored, id)
			f.effect(ForgetCatalog{Server: id.server, Source: id.source})
			f.touch(spec.Name)
		}
	}
}

// cacheKnows reports whether the cache has a catalog for s's spec: a lazy
// server whose catalog it knows is not started just to list it.
func (f *Fleet) cacheKnows(s *fleetServer) bool {
	return f.cache != nil && f.cache.entries[idOf(s.spec)].matches(s.spec)
}

// cached is the entry s's row shows, if it shows one: s is desired and
// not up yet (pending, starting or idle, on its first attempt), lists no
// catalog of its own, and the cache knows its spec's.
func (f *Fleet) cached(s *fleetServer) (*CachedCatalog, bool) {
	if f.cache == nil || f.listing(s) || s.attempt != 0 || s.removed {
		return nil, false
	}
	switch s.state {
	case messages.StatePending, messages.StateStarting, messages.StateIdle:
	default:
		return nil, false
	}
	e := f.cache.entries[idOf(s.spec)]
	return e, e.matches(s.spec)
}

// cacheListed takes what s's serving session listed last, every kind,
// into the cache, and asks the shell to keep it when it differs from what
// the shell holds.
func (f *Fleet) cacheListed(s *fleetServer) {
	if f.cache == nil || s.cur == nil {
		return
	}
	spec := s.cur.spec
	next := CachedCatalog{Server: spec.Name, Source: spec.Source.Path, Key: CatalogKey(spec.Fingerprint),
		Tools: s.tools, Prompts: stampPrompts(s.catalog.prompts, ""), Resources: s.catalog.resources, Templates: s.catalog.templates}
	id, digest := idOf(spec), next.digest()
	if f.cache.stored[id] == digest {
		return
	}
	f.cache.stored[id] = digest
	f.cache.entries[id] = markedCopy(next)
	f.effect(CacheCatalog{Spec: spec, Entry: next})
}
