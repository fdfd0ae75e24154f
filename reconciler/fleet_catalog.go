package reconciler

import (
	"cmp"
	"slices"
	"sort"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// The fleet's catalog beyond tools: each server's prompts, resources and
// resource templates as its session listed them, exposed while it is
// ready. Like tools, a change is one event per server and kind with the
// keys added, removed and changed (by item hash).
//
// Resources and templates are routed by URI (template) across the fleet,
// so two servers may claim the same one. The first in config order owns
// it; the fleet keeps an index from key to claimants, updated with each
// server's own change (its cost follows that server's items, not the
// fleet's), and publishes a CatalogConflict when a key gains an owner it
// did not have before that takes it from another server.

// serverCatalog is the catalog a server exposes (or exposed, last published).
type serverCatalog struct {
	prompts   []messages.Prompt
	resources []messages.Resource
	templates []messages.ResourceTemplate
}

// ConfigOrder places a server in config order: by the index of its file
// in the configured paths, then line and column; the name breaks ties.
type ConfigOrder struct {
	File, Line, Column int
	Name               string
}

// Compare orders two positions, earlier first.
func (o ConfigOrder) Compare(p ConfigOrder) int {
	return cmp.Or(cmp.Compare(o.File, p.File), cmp.Compare(o.Line, p.Line), cmp.Compare(o.Column, p.Column), cmp.Compare(o.Name, p.Name))
}

// order is s's place in config order.
func (f *Fleet) order(name string) ConfigOrder {
	s := f.servers[name]
	if s == nil {
		return ConfigOrder{File: len(f.opts.ConfigPaths), Name: name}
	}
	file := slices.Index(f.opts.ConfigPaths, s.spec.Source.Path)
	if file < 0 {
		file = len(f.opts.ConfigPaths)
	}
	return ConfigOrder{File: file, Line: s.spec.Source.Line, Column: s.spec.Source.Column, Name: name}
}

// SessionPrompts reports a ready session's new prompt list.
type SessionPrompts struct {
	Server  string
	Session uint64
	Prompts []messages.Prompt
	Skipped []messages.CatalogItemSkipped
}

// SessionResources reports a ready session's new resources and templates.
type SessionResources struct {
	Server    string
	Session   uint64
	Resources []messages.Resource
	Templates []messages.ResourceTemplate
	Skipped   []messages.CatalogItemSkipped
}

func (SessionPrompts) isInput()   {}
func (SessionResources) isInput() {}

func (f *Fleet) sessionPrompts(m SessionPrompts) {
	s := f.servers[m.Server]
	if s == nil || s.cur == nil || s.cur.id != m.Session || !s.cur.ready {
		return
	}
	s.catalog.prompts = stampPrompts(m.Prompts, s.spec.Prefix)
	f.publishSkipped(m.Skipped)
	f.publishCatalog(s)
	f.cacheListed(s)
}

func (f *Fleet) sessionResources(m SessionResources) {
	s := f.servers[m.Server]
	if s == nil || s.cur == nil || s.cur.id != m.Session || !s.cur.ready {
		return
	}
	s.catalog.resources, s.catalog.templates = m.Resources, m.Templates
	f.publishSkipped(m.Skipped)
	f.publishCatalog(s)
	f.cacheListed(s)
}

func (f *Fleet) publishSkipped(skipped []messages.CatalogItemSkipped) {
	for i := range skipped {
		f.emit(&skipped[i])
	}
}

// exposedCatalog is what s exposes now: its catalog while ready (or
// listed, for a lazy server: see listing).
func (f *Fleet) exposedCatalog(s *fleetServer) serverCatalog {
	if !f.listing(s) {
		return serverCatalog{}
	}
	return s.catalog
}

// shownCatalog is the rest of what s's row lists: its exposed catalog,
// else the cached one it shows (cached is then true), else nothing.
func (f *Fleet) shownCatalog(s *fleetServer) (cat serverCatalog, cached bool) {
	if f.listing(s) {
		return s.catalog, false
	}
	if e, ok := f.cached(s); ok {
		return serverCatalog{prompts: stampPrompts(e.Prompts, s.spec.Prefix), resources: e.Resources, templates: e.Templates}, true
	}
	return serverCatalog{}, false
}

// publishCatalog publishes, kind by kind, the difference between what s
// last published and what its row lists now, and keeps the routing index
// in step with its live catalog. The events share the lists with the
// fleet: nobody mutates a list once a session has sent it (a new listing
// is a new list), which keeps a change's cost to its diff rather than a
// copy per event.
func (f *Fleet) publishCatalog(s *fleetServer) {
	now, cached := f.shownCatalog(s)
	prev, wasCached := s.published, s.publishedCached
	s.published, s.publishedCached = now, cached
	live := f.exposedCatalog(s)
	// Without the cache on either side, the published lists are the
	// claimed ones: one diff serves both.
	both := !cached && !wasCached
	var session uint64
	if s.cur != nil {
		session = s.cur.id
	}
	name := s.spec.Name
	if a, r, c := diffItems(prev.prompts, now.prompts, promptKey, promptHash); len(a)+len(r)+len(c) > 0 {
		f.emit(&messages.PromptsChanged{Server: name, Session: session, Prompts: now.prompts, Added: a, Removed: r, Changed: c})
	}
	a, r, c := diffItems(prev.resources, now.resources, resourceKey, resourceHash)
	if len(a)+len(r)+len(c) > 0 {
		f.emit(&messages.ResourcesChanged{Server: name, Session: session, Resources: now.resources, Added: a, Removed: r, Changed: c})
	}
	if !both {
		a, r, _ = diffItems(s.indexed.resources, live.resources, resourceKey, resourceHash)
	}
	f.reindex(messages.KindResources, name, a, r)
	a, r, c = diffItems(prev.templates, now.templates, templateKey, templateHash)
	if len(a)+len(r)+len(c) > 0 {
		f.emit(&messages.ResourceTemplatesChanged{Server: name, Session: session, Templates: now.templates, Added: a, Removed: r, Changed: c})
	}
	if !both {
		a, r, _ = diffItems(s.indexed.templates, live.templates, templateKey, templateHash)
	}
	f.reindex(messages.KindResourceTemplates, name, a, r)
	s.indexed = live
}

// claimIndex maps the keys of one kind to the servers that expose them:
// one claimant in one map (the common case, one allocation-free entry), two
// or more in the other.
type claimIndex struct {
	single map[string]string
	multi  map[string][]string
}

func newClaimIndex() *claimIndex {
	return &claimIndex{single: map[string]string{}, multi: map[string][]string{}}
}

func (c *claimIndex) add(key, server string) (others []string) {
	if s, ok := c.single[key]; ok {
		delete(c.single, key)
		c.multi[key] = []string{s, server}
		return []string{s}
	}
	if m, ok := c.multi[key]; ok {
		c.multi[key] = append(m, server)
		return m
	}
	c.single[key] = server
	return nil
}

// remove drops server's claim on key and returns who is left.
func (c *claimIndex) remove(key, server string) (left []string) {
	if s, ok := c.single[key]; ok && s == server {
		delete(c.single, key)
		return nil
	}
	m := slices.DeleteFunc(c.multi[key], func(x string) bool { return x == server })
	switch len(m) {
	case 0:
		delete(c.multi, key)
	case 1:
		delete(c.multi, key)
		c.single[key] = m[0]
	default:
		c.multi[key] = m
	}
	return m
}

// reindex moves server's claims in the routing index of kind: it gave up
// removed and claims added. A claim that takes a key from another server
// (it comes first in config order), or that another server already owns,
// is a conflict: one event per other server and kind, naming the first
// keys. Both servers' rows are touched (the loser's shows a warning).
func (f *Fleet) reindex(kind messages.CatalogKind, server string, added, removed []string) {
	if len(added)+len(removed) == 0 {
		return
	}
	idx := f.claims[kind]
	if idx == nil {
		idx = newClaimIndex()
		f.claims[kind] = idx
	}
	for _, key := range removed {
		for _, o := range idx.remove(key, server) {
			f.touch(o) // a loser may now own it
		}
	}
	me := f.order(server)
	type pair struct{ winner, loser string }
	conflicts := map[pair][]string{}
	for _, key := range added {
		for _, o := range idx.add(key, server) {
			p := pair{winner: o, loser: server}
			if me.Compare(f.order(o)) < 0 {
				p = pair{winner: server, loser: o}
			}
			conflicts[p] = append(conflicts[p], key)
		}
	}
	pairs := make([]pair, 0, len(conflicts))
	for p := range conflicts {
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool {
		return cmp.Or(cmp.Compare(pairs[i].winner, pairs[j].winner), cmp.Compare(pairs[i].loser, pairs[j].loser)) < 0
	})
	for _, p := range pairs {
		keys := conflicts[p]
		sort.Strings(keys)
		f.emit(&messages.CatalogConflict{Kind: kind, Key: redact.Bound(keys[0]), Count: len(keys), Winner: p.winner, Loser: p.loser})
		f.touch(p.winner)
		f.touch(p.loser)
	}
}

// shadowed names s's exposed resources and templates that an earlier
// server in config order owns (nil maps when none), and describes the
// first. Only keys with two or more claimants are looked at, so its cost
// follows the conflicts, not the catalog.
func (f *Fleet) shadowed(s *fleetServer) (resources, templates map[string]bool, first string) {
	me, name := f.order(s.spec.Name), s.spec.Name
	scan := func(kind messages.CatalogKind) map[string]bool {
		idx := f.claims[kind]
		if idx == nil {
			return nil
		}
		var out map[string]bool
		var keys []string
		for key, cs := range idx.multi {
			if !slices.Contains(cs, name) {
				continue
			}
			for _, o := range cs {
				if o != name && f.order(o).Compare(me) < 0 {
					if out == nil {
						out = map[string]bool{}
					}
					out[key] = true
					keys = append(keys, key+" is "+o+"'s")
					break
				}
			}
		}
		if len(keys) > 0 && first == "" {
			slices.Sort(keys)
			first = keys[0]
		}
		return out
	}
	return scan(messages.KindResources), scan(messages.KindResourceTemplates), first
}

func promptKey(p messages.Prompt) string { return p.Name }

// promptHash covers the exposed prefix too: a prompt exposed under a new
// prefix is a changed prompt, as a tool is.
func promptHash(p messages.Prompt) string {
	if p.Prefix == "" {
		return p.Hash
	}
	return p.Prefix + "\x00" + p.Hash
}

func resourceKey(r messages.Resource) string         { return r.URI }
func resourceHash(r messages.Resource) string        { return r.Hash }
func templateKey(t messages.ResourceTemplate) string { return t.URITemplate }
func templateHash(t messages.ResourceTemplate) string {
	return t.Hash
}

// sameList says a and b are one list: the same elements of the same
// array.
func sameList[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// diffItems names the keys added, removed and changed (same key, other
// hash) between two lists sorted by key; each result is sorted.
func diffItems[T any](old, new []T, key, hash func(T) string) (added, removed, changed []string) {
	added, removed, changed = []string{}, []string{}, []string{}
	switch {
	case sameList(old, new): // a list is never mutated: no change
		return added, removed, changed
	case len(old) == 0: // everything added (a server becoming ready)
		added = make([]string, len(new))
		for i, it := range new {
			added[i] = key(it)
		}
		if !slices.IsSorted(added) {
			sort.Strings(added)
		}
		return added, removed, changed
	case len(new) == 0: // everything removed
		removed = make([]string, len(old))
		for i, it := range old {
			removed[i] = key(it)
		}
		if !slices.IsSorted(removed) {
			sort.Strings(removed)
		}
		return added, removed, changed
	}
	prev := make(map[string]string, len(old))
	for _, it := range old {
		prev[key(it)] = hash(it)
	}
	for _, it := range new {
		k := key(it)
		h, ok := prev[k]
		switch {
		case !ok:
			added = append(added, k)
		case h != hash(it):
			changed = append(changed, k)
		}
		delete(prev, k)
	}
	for k := range prev {
		removed = append(removed, k)
	}
	for _, l := range [][]string{added, changed, removed} {
		if !slices.IsSorted(l) {
			sort.Strings(l)
		}
	}
	return added, removed, changed
}
