package reconciler

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// Row is one server as status shows it: a projection of the fleet's
// state. The shell adds what only it knows (the session's live stderr and
// where to route its calls).
type Row struct {
	Status messages.ServerStatus
	// Tools are the exposed tools (after the tool filters); nil unless
	// the server is ready.
	Tools []messages.Tool
	// Prompts, Resources and Templates are the rest of the exposed
	// catalog, nil unless the server is ready. Resources and Templates
	// include those another server owns (see Shadowed).
	Prompts   []messages.Prompt
	Resources []messages.Resource
	Templates []messages.ResourceTemplate
	// ShadowedResources and ShadowedTemplates are the URIs and URI
	// templates of this server that an earlier server owns (nil if none).
	ShadowedResources, ShadowedTemplates map[string]bool
	// Order is the server's place in config order: of two servers that
	// claim the same URI, the earlier owns it.
	Order ConfigOrder
	Ready bool
	// Listed says the catalog above is exposed and routed: the server is
	// ready, or it is lazy and between sessions (a request starts it).
	Listed bool
	// Cached says the catalog above is the server's cached one, shown
	// while it is not up yet (fleet_cache.go); its items are marked
	// Cached. An eager server's is listed, not routed (Listed is false); a
	// lazy server's routes as its own would.
	Cached bool
	// Lazy says the server starts only when used (messages.AutostartLazy);
	// CatalogCurrent that its catalog was listed by a session of its
	// current spec.
	Lazy, CatalogCurrent bool
	// ConnectTimeout is the server's own connect timeout; zero means the
	// default.
	ConnectTimeout time.Duration
	// Named says Status.Prefix is the server's exposed prefix (maybe
	// empty): the server has a spec, running or disabled. Invalid and
	// untrusted entries have none.
	Named bool
	// CallTimeout is the server's own call timeout; zero means the default.
	CallTimeout time.Duration
	// ResetTimeoutOnProgress, Roots and AllowUnsolicitedRequests are the
	// server's live relay settings (see messages.ServerSpec).
	ResetTimeoutOnProgress   bool
	Roots                    []string
	AllowUnsolicitedRequests bool
}

// Row renders one server: a live server, else an invalid entry, else a
// disabled one; false if the name is not in the fleet at all.
func (f *Fleet) Row(name string) (Row, bool) {
	if s, ok := f.servers[name]; ok {
		row := Row{Status: messages.ServerStatus{
			Name: name, Prefix: s.spec.Prefix, Transport: s.spec.Transport, State: s.state, Attempt: s.attempt,
			Restarts: s.restarts, LastError: s.lastErr, Warning: s.warning(), NextRetry: s.nextRetry,
			Since: s.since, Source: s.spec.Source, StderrTail: append([]string{}, s.stderrTail...),
		}, CallTimeout: s.spec.CallTimeout, ResetTimeoutOnProgress: s.spec.ResetTimeoutOnProgress, Roots: s.spec.Roots,
			AllowUnsolicitedRequests: s.spec.AllowUnsolicitedRequests, Named: true}
		if s.cur != nil {
			row.Status.Session, row.Status.PID = s.cur.id, s.cur.pid
			if s.cur.transport != "" {
				row.Status.Transport = s.cur.transport
			}
		}
		row.Lazy, row.CatalogCurrent, row.ConnectTimeout = f.lazy(s), s.catalogCurrent(), s.spec.ConnectTimeout
		row.Ready = s.state == messages.StateReady && s.cur != nil
		// What the row lists: the live catalog while it lists it, else the
		// cached one it shows, else nothing.
		cat, cached := f.shownCatalog(s)
		row.Tools = filterTools(f.shownToolList(s), s.spec)
		row.Prompts, row.Resources, row.Templates = cat.prompts, cat.resources, cat.templates
		row.Status.Tools, row.Status.Prompts = len(row.Tools), len(row.Prompts)
		row.Status.Resources, row.Status.Templates = len(row.Resources), len(row.Templates)
		if cached {
			row.Cached, row.Status.Cached = true, true
			row.Listed = f.lazy(s) // a lazy server's cached items route: a use starts it
		} else if f.listing(s) {
			row.Listed = true
			var first string
			row.ShadowedResources, row.ShadowedTemplates, first = f.shadowed(s)
			if n := len(row.ShadowedResources) + len(row.ShadowedTemplates); n > 0 {
				w := fmt.Sprintf("%d resources or templates owned by a server earlier in config order (%s)", n, first)
				if row.Status.Warning != "" {
					w = row.Status.Warning + "; " + w
				}
				row.Status.Warning = redact.Bound(w)
			}
		}
		row.Order = f.order(name)
		return row, true
	}
	if inv, ok := f.invalid[name]; ok {
		return Row{Status: messages.ServerStatus{
			Name: name, State: inv.EntryState(), LastError: inv.Reason, Source: inv.Source, StderrTail: []string{},
		}}, true
	}
	if d, ok := f.disabled[name]; ok {
		return Row{Status: messages.ServerStatus{
			Name: name, Prefix: d.Prefix, Transport: d.Transport, State: messages.StateDisabled, Source: d.Source, StderrTail: []string{},
		}, Named: true}, true
	}
	return Row{}, false
}

// Rows renders every server, sorted by name.
func (f *Fleet) Rows() []Row {
	names := map[string]bool{}
	for _, m := range []map[string]bool{keys(f.servers), keys(f.invalid), keys(f.disabled)} {
		maps.Copy(names, m)
	}
	sorted := slices.Sorted(maps.Keys(names))
	out := make([]Row, 0, len(sorted))
	for _, name := range sorted {
		row, _ := f.Row(name)
		out = append(out, row)
	}
	return out
}

func keys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
