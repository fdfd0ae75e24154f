package reconciler

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/mcpvisor/mcpvisor/messages"
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
	s.catalog.prompts = m.Prompts
	f.publishSkipped(m.Skipped)
	f.publishCatalog(s)
}

func (f *Fleet) sessionResources(m SessionResources) {
	s := f.servers[m.Server]
	if s == nil || s.cur == nil || s.cur.id != m.Session || !s.cur.ready {
		return
	}
	s.catalog.resources, s.catalog.templates = m.Resources, m.Templates
	f.publishSkipped(m.Skipped)
	f.publishCatalog(s)
}

func (f *Fleet) publishSkipped(skipped []messages.CatalogItemSkipped) {
	for i := range skipped {
		f.emit(&skipped[i])
	}
}

// exposedCatalog is what s exposes now: its catalog while ready.
func (f *Fleet) exposedCatalog(s *fleetServer) serverCatalog {
	if s.state != messages.StateReady || s.cur == nil {
		return serverCatalog{}
	}
	return s.catalog
}

// publishCatalog publishes, kind by kind, the difference between what s
// last published and what it exposes now, and keeps the routing index in
// step with it.
func (f *Fleet) publishCatalog(s *fleetServer) {
	now, prev := f.exposedCatalog(s), s.published
	s.published = now
	var session uint64
	if s.cur != nil {
		session = s.cur.id
	}
	name := s.spec.Name
	if a, r, c := diffItems(prev.prompts, now.prompts, promptKey, promptHash); len(a)+len(r)+len(c) > 0 {
		f.emit(&messages.PromptsChanged{Server: name, Session: session, Prompts: slices.Clone(now.prompts), Added: a, Removed: r, Changed: c})
	}
	if a, r, c := diffItems(prev.resources, now.resources, resourceKey, resourceHash); len(a)+len(r)+len(c) > 0 {
		f.emit(&messages.ResourcesChanged{Server: name, Session: session, Resources: slices.Clone(now.resources), Added: a, Removed: r, Changed: c})
		f.reindex(messages.KindResources, name, a, r)
	}
	if a, r, c := diffItems(prev.templates, now.templates, templateKey, templateHash); len(a)+len(r)+len(c) > 0 {
		f.emit(&messages.ResourceTemplatesChanged{Server: name, Session: session, Templates: slices.Clone(now.templates), Added: a, Removed: r, Changed: c})
		f.reindex(messages.KindResourceTemplates, name, a, r)
	}
}

// reindex moves server's claims in the routing index of kind: it gave up
// removed and claims added. A claim that takes a key from another server
// (it comes first in config order), or that another server already owns,
// is a conflict: one event per other server and kind, naming the first
// keys. Both servers' rows are touched (the loser's shows a warning).
func (f *Fleet) reindex(kind messages.CatalogKind, server string, added, removed []string) {
	idx := f.claims[kind]
	if idx == nil {
		idx = map[string][]string{}
		f.claims[kind] = idx
	}
	for _, key := range removed {
		left := slices.DeleteFunc(idx[key], func(c string) bool { return c == server })
		if len(left) == 0 {
			delete(idx, key)
			continue
		}
		idx[key] = left
		f.touch(left[0]) // a loser may now own it
	}
	me := f.order(server)
	type pair struct{ winner, loser string }
	conflicts := map[pair][]string{}
	for _, key := range added {
		others := idx[key]
		idx[key] = append(others, server)
		for _, o := range others {
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
		f.emit(&messages.CatalogConflict{Kind: kind, Key: BoundText(keys[0]), Count: len(keys), Winner: p.winner, Loser: p.loser})
		f.touch(p.winner)
		f.touch(p.loser)
	}
}

// shadowed names s's exposed resources and templates that an earlier
// server in config order owns (nil maps when none), and describes the
// first. Its cost follows s's items.
func (f *Fleet) shadowed(s *fleetServer) (resources, templates map[string]bool, first string) {
	me := f.order(s.spec.Name)
	check := func(kind messages.CatalogKind, key string) bool {
		for _, o := range f.claims[kind][key] {
			if o != s.spec.Name && f.order(o).Compare(me) < 0 {
				if first == "" {
					first = fmt.Sprintf("%s is %s's", key, o)
				}
				return true
			}
		}
		return false
	}
	for _, r := range s.published.resources {
		if check(messages.KindResources, r.URI) {
			if resources == nil {
				resources = map[string]bool{}
			}
			resources[r.URI] = true
		}
	}
	for _, t := range s.published.templates {
		if check(messages.KindResourceTemplates, t.URITemplate) {
			if templates == nil {
				templates = map[string]bool{}
			}
			templates[t.URITemplate] = true
		}
	}
	return resources, templates, first
}

func promptKey(p messages.Prompt) string             { return p.Name }
func promptHash(p messages.Prompt) string            { return p.Hash }
func resourceKey(r messages.Resource) string         { return r.URI }
func resourceHash(r messages.Resource) string        { return r.Hash }
func templateKey(t messages.ResourceTemplate) string { return t.URITemplate }
func templateHash(t messages.ResourceTemplate) string {
	return t.Hash
}

// diffItems names the keys added, removed and changed (same key, other
// hash) between two lists sorted by key; each result is sorted.
func diffItems[T any](old, new []T, key, hash func(T) string) (added, removed, changed []string) {
	added, removed, changed = []string{}, []string{}, []string{}
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
	sort.Strings(added)
	sort.Strings(changed)
	sort.Strings(removed)
	return added, removed, changed
}
