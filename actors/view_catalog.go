package actors

import (
	"regexp"
	"slices"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// The read side of the catalog. Each row carries its server's prompts,
// resources and templates (shared with the fleet, which never mutates
// them) and indexes of its own, built when the row is: its cost follows
// that server. A snapshot adds its ready rows in config order, which
// decides who owns a URI; a lookup walks them (one map probe per server).

// rowCatalog is the catalog part of a serverRow.
type rowCatalog struct {
	prompts   []messages.Prompt
	resources []messages.Resource
	templates []messages.ResourceTemplate
	order     reconciler.ConfigOrder
	// shadowedResources and shadowedTemplates are this server's keys that
	// an earlier server owns: listed nowhere, routed there.
	shadowedResources, shadowedTemplates map[string]bool
	promptNames                          map[string]bool
	uris                                 map[string]bool
	// matchers are the owned templates, compiled, in key order.
	matchers []templateMatcher
}

type templateMatcher struct {
	template string
	re       *regexp.Regexp
}

// catalogRow builds the catalog part of a row from the fleet's row.
func catalogRow(fr reconciler.Row) rowCatalog {
	rc := rowCatalog{
		prompts: fr.Prompts, resources: fr.Resources, templates: fr.Templates, order: fr.Order,
		shadowedResources: fr.ShadowedResources, shadowedTemplates: fr.ShadowedTemplates,
	}
	if !fr.Ready {
		return rc
	}
	rc.promptNames = make(map[string]bool, len(fr.Prompts))
	for _, p := range fr.Prompts {
		rc.promptNames[p.Name] = true
	}
	rc.uris = make(map[string]bool, len(fr.Resources))
	for _, r := range fr.Resources {
		if !rc.shadowedResources[r.URI] {
			rc.uris[r.URI] = true
		}
	}
	for _, t := range fr.Templates {
		if rc.shadowedTemplates[t.URITemplate] {
			continue
		}
		tmpl, err := uritemplate.New(t.URITemplate)
		if err != nil {
			continue // not a template anything can be matched against
		}
		rc.matchers = append(rc.matchers, templateMatcher{template: t.URITemplate, re: tmpl.Regexp()})
	}
	return rc
}

// byOrder sorts the ready rows into config order.
func byOrder(rows []*serverRow) []*serverRow {
	out := make([]*serverRow, 0, len(rows))
	for _, r := range rows {
		if r.ready {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *serverRow) int { return a.cat.order.Compare(b.cat.order) })
	return out
}

// resourceOwner is the row a URI routes to: the first in config order
// that lists a resource of that URI, else the first whose template
// matches it.
func (s *fleetSnapshot) resourceOwner(uri string) (*serverRow, bool) {
	for _, r := range s.ordered {
		if r.cat.uris[uri] {
			return r, true
		}
	}
	for _, r := range s.ordered {
		for _, m := range r.cat.matchers {
			if m.re.MatchString(uri) {
				return r, true
			}
		}
	}
	return nil, false
}

// templateOwner is the row that owns a URI template (or, failing that, the
// owner of it as a URI).
func (s *fleetSnapshot) templateOwner(template string) (*serverRow, bool) {
	for _, r := range s.ordered {
		for _, m := range r.cat.matchers {
			if m.template == template {
				return r, true
			}
		}
	}
	return s.resourceOwner(template)
}

// prompts copies the prompts of every ready server.
func (s *fleetSnapshot) prompts() []messages.Prompt {
	out := []messages.Prompt{}
	for _, row := range s.rows {
		if row.ready {
			out = append(out, row.cat.prompts...)
		}
	}
	return out
}

// resources copies the owned resources of every ready server.
func (s *fleetSnapshot) resources() []messages.Resource {
	out := []messages.Resource{}
	for _, row := range s.rows {
		if !row.ready {
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

// templates copies the owned resource templates of every ready server.
func (s *fleetSnapshot) templates() []messages.ResourceTemplate {
	out := []messages.ResourceTemplate{}
	for _, row := range s.rows {
		if !row.ready {
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
