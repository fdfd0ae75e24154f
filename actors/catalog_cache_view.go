package actors

import (
	"slices"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// The reconciler's half of the catalog cache. It knows every entry (read
// in Start, then each serving session's catalog as it changes) and shows
// a server's entry while the server is not up yet: the view's row of a
// pending, starting or idle server, on its first attempt, that lists no
// catalog of its own and whose entry matches its spec (same name, config
// file and fingerprint) lists the entry's tools, prompts, resources and
// templates, marked Cached (items and status row), under the spec's tool
// filters and prefix. An eager server's such row is listed, not
// callable: a call or get of it is ErrNotReady, as for any server not
// ready (by prefix, or by a bare name no ready server has); a read of a
// cached URI is unknown until the server is up. A lazy server's routes
// as its own catalog would: a request starts it. And a lazy server whose
// entry is known is not started just to list its catalog (catalogKnown).
//
// The catalog events follow what is shown, as they follow a live catalog:
// for a server whose row shows its entry before or after a message, the
// fleet's own catalog events of that message are replaced by the
// difference between the two rows, per kind. So a cached catalog appears
// as added when its server starts; the live one, when it comes and is
// the same, changes nothing (no event, no list_changed downstream); when
// it differs, the difference is the change; a start that fails withdraws
// it.
//
// The fleet's row says nothing about a server's spec, so the shell keeps
// the desired state's, by name; a spec whose fingerprint no longer
// matches its server's entry drops the entry, here and on disk.

// cacheShell is what the reconciler actor keeps of the catalog cache.
type cacheShell struct {
	disk    *catalogCache             // nil: the cache is off
	entries map[string]*cachedCatalog // by file: the newest known entry, items marked Cached
	stored  map[string]string         // by file: digest of what is on disk, or queued to be
	specs   map[string]messages.ServerSpec
	live    map[string]*cachedCatalog // by server: its serving session's catalog
	touched []string                  // servers whose entry changed since the last view swap
}

func newCacheShell(disk *catalogCache, entries map[string]*cachedCatalog) cacheShell {
	cs := cacheShell{disk: disk, entries: entries, stored: map[string]string{},
		specs: map[string]messages.ServerSpec{}, live: map[string]*cachedCatalog{}}
	if cs.entries == nil {
		cs.entries = map[string]*cachedCatalog{}
	}
	for file, e := range cs.entries {
		cs.stored[file] = e.digest()
	}
	return cs
}

// lookup is the catalog the cache knows for spec's server, as it
// would be shown (tool filters and prefix applied, items marked Cached),
// and whether there is one that matches spec.
func (cs *cacheShell) lookup(spec messages.ServerSpec) (knownCatalog, bool) {
	if cs.disk == nil {
		return knownCatalog{}, false
	}
	e := cs.entries[cacheFile(spec.Name, spec.Source.Path)]
	if !e.matches(spec) {
		return knownCatalog{}, false
	}
	return knownCatalog{
		tools:     reconciler.ExposeTools(e.Tools, spec),
		prompts:   reconciler.StampPrompts(e.Prompts, spec.Prefix),
		resources: e.Resources, templates: e.Templates,
	}, true
}

// knownCatalog is an entry as a row shows it.
type knownCatalog struct {
	tools     []messages.Tool
	prompts   []messages.Prompt
	resources []messages.Resource
	templates []messages.ResourceTemplate
}

// showsCache says whether a row in this state shows its server's cached
// catalog: not up yet, on its first attempt (a server that failed shows
// nothing until it is up again, so a crash loop does not flap its tools
// in and out of every client's list), or a lazy server idle before its
// first session.
func showsCache(st messages.ServerStatus) bool {
	switch st.State {
	case messages.StatePending, messages.StateStarting, messages.StateIdle:
		return st.Attempt == 0
	}
	return false
}

// knows reports whether the cache has a catalog for server that matches
// its spec: a lazy server whose catalog it knows need not be started to
// list it (catalogKnown).
func (cs *cacheShell) knows(server string) bool {
	spec, ok := cs.specs[server]
	if !ok {
		return false
	}
	_, ok = cs.lookup(spec)
	return ok
}

// cacheDesired notes the desired state's specs and drops the entries that
// no longer match their server's fingerprint.
func (r *reconcilerActor) cacheDesired(m *messages.DesiredState) {
	cs := &r.cache
	if cs.disk == nil {
		return
	}
	clear(cs.specs)
	for _, spec := range m.Servers {
		cs.specs[spec.Name] = spec
		file := cacheFile(spec.Name, spec.Source.Path)
		if e := cs.entries[file]; e != nil && !e.matches(spec) {
			delete(cs.entries, file)
			delete(cs.stored, file)
			cs.disk.remove(file)
			cs.touched = append(cs.touched, spec.Name)
		}
	}
}

// cacheLive takes a serving session's listing (kinds of cat, or all of
// them once it is ready) into the cache when the fleet took it, and has it
// written when it differs from the entry on disk.
func (r *reconcilerActor) cacheLive(server string, id uint64, cat catalog, whole bool) {
	cs := &r.cache
	ls := r.sessions[id]
	if cs.disk == nil || ls == nil {
		return
	}
	if fr, ok := r.fleet.Row(server); !ok || !fr.Ready && !fr.Listed || fr.Status.Session != id {
		return // stale, or not taken (a lazy server that listed its catalog to go idle took it)
	}
	next := &cachedCatalog{Version: cacheVersion, Server: server, Source: ls.spec.Source.Path, Key: cacheKey(ls.spec.Fingerprint)}
	if prev := cs.live[server]; prev != nil && prev.Key == next.Key && prev.Source == next.Source {
		next.Tools, next.Prompts, next.Resources, next.Templates = prev.Tools, prev.Prompts, prev.Resources, prev.Templates
	}
	if whole || cat.kinds&kindTools != 0 {
		next.Tools = cat.tools
	}
	if whole || cat.kinds&kindPrompts != 0 {
		next.Prompts = cat.prompts
	}
	if whole || cat.kinds&kindResources != 0 {
		next.Resources, next.Templates = cat.resources, cat.templates
	}
	cs.live[server] = next
	file := cacheFile(server, next.Source)
	digest := next.digest()
	if cs.stored[file] == digest {
		return
	}
	cs.stored[file] = digest
	cs.entries[file] = markedCopy(next)
	cs.disk.store(file, next, cacheSecrets(ls.spec, r.env.opts.Secrets))
}

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

// markedCopy is e with every item copied and marked Cached.
func markedCopy(e *cachedCatalog) *cachedCatalog {
	out := *e
	out.Tools, out.Prompts = slices.Clone(e.Tools), slices.Clone(e.Prompts)
	out.Resources, out.Templates = slices.Clone(e.Resources), slices.Clone(e.Templates)
	out.markCached()
	return &out
}

// cachedRow fills in a row that lists no catalog of its own (not ready,
// not a lazy server that listed one this run) with its server's cached
// catalog, when its state shows one and the cache has one for its spec.
// A lazy server's cached items route as its own would: a request starts
// it.
func (r *reconcilerActor) cachedRow(row *serverRow, fr reconciler.Row) {
	if fr.Listed || !showsCache(fr.Status) {
		return
	}
	spec, ok := r.cache.specs[fr.Status.Name]
	if !ok {
		return
	}
	known, ok := r.cache.lookup(spec)
	if !ok {
		return
	}
	row.cached, row.status.Cached = true, true
	row.tools = known.tools
	row.cat.prompts = sortedBy(known.prompts, func(p messages.Prompt) string { return p.Name })
	row.cat.resources = sortedBy(known.resources, func(r messages.Resource) string { return r.URI })
	row.cat.templates = sortedBy(known.templates, func(t messages.ResourceTemplate) string { return t.URITemplate })
	row.status.Tools, row.status.Prompts = len(row.tools), len(row.cat.prompts)
	row.status.Resources, row.status.Templates = len(row.cat.resources), len(row.cat.templates)
	if fr.Lazy {
		row.ready = true
		row.exposed = make(map[string]bool, len(row.tools))
		for _, t := range row.tools {
			row.exposed[t.Name] = true
		}
		for _, t := range row.cat.templates {
			row.cat.matchers = append(row.cat.matchers, &templateMatcher{template: t.URITemplate})
		}
	}
}

// takeCacheTouched returns the servers whose entries changed since the
// last call, for the view to rebuild their rows.
func (r *reconcilerActor) takeCacheTouched() []string {
	t := r.cache.touched
	r.cache.touched = nil
	return t
}

// publishCachedCatalogs replaces, for every server among names whose row
// showed its cached catalog in old or shows it now, the fleet's catalog
// events of this message by the difference between the two rows.
func (r *reconcilerActor) publishCachedCatalogs(old *fleetSnapshot, names []string) {
	if r.cache.disk == nil {
		return
	}
	now := r.view.load()
	for _, name := range names {
		before, _ := old.row(name)
		after, _ := now.row(name)
		if !before.showsCached() && !after.showsCached() {
			continue
		}
		r.outbox = slices.DeleteFunc(r.outbox, func(ev messages.Event) bool { return isCatalogEventOf(ev, name) })
		r.outbox = append(r.outbox, catalogDiff(name, before, after)...)
	}
}

func (row *serverRow) showsCached() bool { return row != nil && row.cached }

// listsCached reports whether a row that shows its cached catalog lists
// an item of kind by that name (the server's own name for it).
func (row *serverRow) listsCached(name string, kind itemKind) bool {
	if kind.noun == toolItems.noun {
		return slices.ContainsFunc(row.tools, func(t messages.Tool) bool { return t.Name == name })
	}
	return row.cat.hasPrompt(name)
}

// isCatalogEventOf reports whether ev is a catalog change of server.
func isCatalogEventOf(ev messages.Event, server string) bool {
	switch ev := ev.(type) {
	case *messages.ToolsChanged:
		return ev.Server == server
	case *messages.PromptsChanged:
		return ev.Server == server
	case *messages.ResourcesChanged:
		return ev.Server == server
	case *messages.ResourceTemplatesChanged:
		return ev.Server == server
	}
	return false
}

// exposedCatalog is what a row lists: its live catalog while ready, its
// cached one while it shows that, else nothing.
func (row *serverRow) exposedCatalog() knownCatalog {
	if row == nil || !row.ready && !row.cached {
		return knownCatalog{}
	}
	return knownCatalog{tools: row.tools, prompts: row.cat.prompts, resources: row.cat.resources, templates: row.cat.templates}
}

// catalogDiff is the catalog events that take server from what before
// lists to what after does, one per kind that changed.
func catalogDiff(server string, before, after *serverRow) []messages.Event {
	b, a := before.exposedCatalog(), after.exposedCatalog()
	var session uint64
	if after != nil {
		session = after.status.Session
	}
	var out []messages.Event
	if add, rm, ch := reconciler.DiffTools(b.tools, a.tools); len(add)+len(rm)+len(ch) > 0 {
		out = append(out, &messages.ToolsChanged{Server: server, Session: session, Tools: append([]messages.Tool{}, a.tools...), Added: add, Removed: rm, Changed: ch})
	}
	if add, rm, ch := reconciler.DiffPrompts(b.prompts, a.prompts); len(add)+len(rm)+len(ch) > 0 {
		out = append(out, &messages.PromptsChanged{Server: server, Session: session, Prompts: a.prompts, Added: add, Removed: rm, Changed: ch})
	}
	if add, rm, ch := reconciler.DiffResources(b.resources, a.resources); len(add)+len(rm)+len(ch) > 0 {
		out = append(out, &messages.ResourcesChanged{Server: server, Session: session, Resources: a.resources, Added: add, Removed: rm, Changed: ch})
	}
	if add, rm, ch := reconciler.DiffTemplates(b.templates, a.templates); len(add)+len(rm)+len(ch) > 0 {
		out = append(out, &messages.ResourceTemplatesChanged{Server: server, Session: session, Templates: a.templates, Added: add, Removed: rm, Changed: ch})
	}
	return out
}
