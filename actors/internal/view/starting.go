package view

import (
	"slices"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// Servers on their way up. A request that comes while the fleet starts (a
// one-shot client's first call, get or read) is for a server that takes
// none yet: the Supervisor has it wait for that server (fleet.Tree.Use)
// rather than fail. These say which rows such a request waits for.

// Starting reports whether the row's server is on its way up and takes no
// request yet: pending or starting, and not routable (it connects, shows
// its cached catalog, or is a lazy server listing its catalog for the
// first time).
func (r *Row[S]) Starting() bool {
	if r == nil || r.Routable {
		return false
	}
	switch r.Status.State {
	case messages.StatePending, messages.StateStarting:
		return true
	}
	return false
}

// StartingUnknown lists the rows that are Starting with a catalog nobody
// knows yet (no session listed it, the cache has none), by name: any of
// them may provide a name or URI that no other server does.
func (s *Snapshot[S]) StartingUnknown() []*Row[S] {
	var out []*Row[S]
	for _, r := range s.rows {
		if r.Starting() && !r.cached {
			out = append(out, r)
		}
	}
	return out
}

// CachedResourceOwner is the Starting row that a URI routes to by its
// cached catalog: the first in config order that lists a resource of that
// URI, else the first whose template matches it. Routable rows own URIs
// first (ResourceOwner); this is where a URI goes that only a server not
// up yet lists.
func (s *Snapshot[S]) CachedResourceOwner(uri string) (*Row[S], bool) {
	rows := s.cachedStarting()
	for _, r := range rows {
		if r.cat.ownsURI(uri) {
			return r, true
		}
	}
	for _, r := range rows {
		for _, m := range r.cat.matchers {
			if m.match(uri) {
				return r, true
			}
		}
	}
	return nil, false
}

// CachedTemplateOwner is the Starting row that owns a URI template by its
// cached catalog (or, failing that, the owner of it as a URI), as
// TemplateOwner for routable rows.
func (s *Snapshot[S]) CachedTemplateOwner(template string) (*Row[S], bool) {
	for _, r := range s.cachedStarting() {
		for _, m := range r.cat.matchers {
			if m.template == template {
				return r, true
			}
		}
	}
	return s.CachedResourceOwner(template)
}

// cachedStarting lists the Starting rows that show their cached catalog,
// in config order.
func (s *Snapshot[S]) cachedStarting() []*Row[S] {
	var out []*Row[S]
	for _, r := range s.rows {
		if r.Starting() && r.cached {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Row[S]) int { return a.cat.order.Compare(b.cat.order) })
	return out
}

// StartingFor lists the Starting rows with a catalog nobody knows that a
// tool or prompt name may route to once they are up: none when the name's
// prefix is a server's (RouteTool finds that row, up or not), else the
// servers with the empty prefix, whose items go by their own names.
func (s *Snapshot[S]) StartingFor(name string) []*Row[S] {
	if prefix, _, ok := config.SplitName(name); ok {
		if _, found := s.byPrefix(prefix); found {
			return nil
		}
	}
	var out []*Row[S]
	for _, r := range s.bare {
		if r.Starting() && !r.cached {
			out = append(out, r)
		}
	}
	return out
}

// Applied reports whether the fleet has applied a desired state: before
// the first, the config files are still being read and no server is known
// by name, so nothing a request names can be told unknown yet.
func (s *Snapshot[S]) Applied() bool {
	return s.meta.Observed > 0 && s.meta.Observed >= s.meta.Generation
}
