package view

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// The read side of the catalog. Each row carries its server's prompts,
// resources and templates (shared with the fleet, which never mutates
// them) and indexes of its own, built when the row is: its cost follows
// that server. A snapshot adds its ready rows in config order, which
// decides who owns a URI; a lookup walks them (one map probe per server).

// rowCatalog is the catalog part of a Row.
type rowCatalog struct {
	// prompts, resources and templates are sorted by their keys (the
	// session sorts them; catalogRow makes sure), so a lookup is a binary
	// search and building a row costs no index.
	prompts   []messages.Prompt
	resources []messages.Resource
	templates []messages.ResourceTemplate
	order     reconciler.ConfigOrder
	// shadowedResources and shadowedTemplates are this server's keys that
	// an earlier server owns: listed nowhere, routed there.
	shadowedResources, shadowedTemplates map[string]bool
	// matchers are the owned templates, in key order, compiled on first use.
	matchers []*templateMatcher
}

// templateMatcher matches URIs against one URI template.
type templateMatcher struct {
	template string
	once     sync.Once
	re       *regexp.Regexp // nil: not a template anything matches
}

func (m *templateMatcher) match(uri string) bool {
	m.once.Do(func() {
		if t, err := uritemplate.New(m.template); err == nil {
			m.re = t.Regexp()
		}
	})
	return m.re != nil && m.re.MatchString(uri)
}

// catalogRow builds the catalog part of a row from the fleet's row.
func catalogRow(fr reconciler.Row) rowCatalog {
	rc := rowCatalog{
		prompts:           sortedBy(fr.Prompts, func(p messages.Prompt) string { return p.Name }),
		resources:         sortedBy(fr.Resources, func(r messages.Resource) string { return r.URI }),
		templates:         sortedBy(fr.Templates, func(t messages.ResourceTemplate) string { return t.URITemplate }),
		order:             fr.Order,
		shadowedResources: fr.ShadowedResources, shadowedTemplates: fr.ShadowedTemplates,
	}
	for _, t := range rc.templates {
		if !rc.shadowedTemplates[t.URITemplate] {
			rc.matchers = append(rc.matchers, &templateMatcher{template: t.URITemplate})
		}
	}
	return rc
}

// sortedBy returns items sorted by key: as they are when they already
// are (the fleet's lists are never mutated), else a sorted copy.
func sortedBy[T any](items []T, key func(T) string) []T {
	cmpKeys := func(a, b T) int { return strings.Compare(key(a), key(b)) }
	if slices.IsSortedFunc(items, cmpKeys) {
		return items
	}
	out := slices.Clone(items)
	slices.SortStableFunc(out, cmpKeys)
	return out
}

// hasPrompt reports whether the row exposes a prompt of that name.
func (rc *rowCatalog) hasPrompt(name string) bool {
	_, ok := slices.BinarySearchFunc(rc.prompts, name, func(p messages.Prompt, n string) int { return strings.Compare(p.Name, n) })
	return ok
}

// ownsURI reports whether the row lists a resource of that URI that no
// earlier server owns.
func (rc *rowCatalog) ownsURI(uri string) bool {
	_, ok := slices.BinarySearchFunc(rc.resources, uri, func(r messages.Resource, u string) int { return strings.Compare(r.URI, u) })
	return ok && !rc.shadowedResources[uri]
}

// compareOrder orders bare rows: config order, then name.
func compareOrder[S comparable](r, o *Row[S]) int {
	return cmp.Or(r.cat.order.Compare(o.cat.order), strings.Compare(r.Status.Name, o.Status.Name))
}

// byOrder sorts the routable rows into config order.
func byOrder[S comparable](rows []*Row[S]) []*Row[S] {
	out := make([]*Row[S], 0, len(rows))
	for _, r := range rows {
		if r.Routable {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Row[S]) int { return a.cat.order.Compare(b.cat.order) })
	return out
}

// ResourceOwner is the row a URI routes to: the first in config order
// that lists a resource of that URI, else the first whose template
// matches it.
func (s *Snapshot[S]) ResourceOwner(uri string) (*Row[S], bool) {
	for _, r := range s.ordered {
		if r.cat.ownsURI(uri) {
			return r, true
		}
	}
	for _, r := range s.ordered {
		for _, m := range r.cat.matchers {
			if m.match(uri) {
				return r, true
			}
		}
	}
	return nil, false
}

// TemplateOwner is the row that owns a URI template (or, failing that, the
// owner of it as a URI).
func (s *Snapshot[S]) TemplateOwner(template string) (*Row[S], bool) {
	for _, r := range s.ordered {
		for _, m := range r.cat.matchers {
			if m.template == template {
				return r, true
			}
		}
	}
	return s.ResourceOwner(template)
}

// Prompts copies the prompts of every ready server (or one that shows
// its cached catalog, as for the rest of the catalog).
func (s *Snapshot[S]) Prompts() []messages.Prompt {
	out := []messages.Prompt{}
	for _, row := range s.rows {
		if row.Routable || row.cached {
			out = append(out, row.cat.prompts...)
		}
	}
	return out
}

// Resources copies the owned resources of every ready server.
func (s *Snapshot[S]) Resources() []messages.Resource {
	out := []messages.Resource{}
	for _, row := range s.rows {
		if !row.Routable && !row.cached {
			continue
		}
		for _, r := range row.cat.resources {
			if !row.cat.shadowedResources[r.URI] {
				out = append(out, r)
			}
		}
	}
	return out
}

// Templates copies the owned resource templates of every ready server.
func (s *Snapshot[S]) Templates() []messages.ResourceTemplate {
	out := []messages.ResourceTemplate{}
	for _, row := range s.rows {
		if !row.Routable && !row.cached {
			continue
		}
		for _, t := range row.cat.templates {
			if !row.cat.shadowedTemplates[t.URITemplate] {
				out = append(out, t)
			}
		}
	}
	return out
}
