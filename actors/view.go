package actors

import (
	"cmp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/messages"
)

// fleetView is the read side of the fleet: an immutable snapshot that the
// reconciler actor swaps atomically after every change. Readers never block
// and never see a half-applied change.
type fleetView struct {
	p atomic.Pointer[fleetSnapshot]
}

// fleetSnapshot is immutable once stored. Its rows are shared between
// snapshots: a refresh replaces only the rows of servers that changed, so
// its cost follows the change, not the fleet.
type fleetSnapshot struct {
	generation, observed uint64
	configErrors         []messages.Diagnostic
	rows                 []*serverRow // sorted by name
	ordered              []*serverRow // the ready rows in config order
	// prefixed indexes the rows of servers with a non-empty prefix, sorted
	// by prefix; bare holds those with the empty prefix, in config order
	// (which decides who owns a name two of them expose).
	prefixed, bare []*serverRow
}

// serverRow is one server as readers see it; immutable once published.
type serverRow struct {
	status messages.ServerStatus
	// named says the row has an exposed prefix (status.Prefix, maybe
	// empty): the server is in the fleet with a spec, running or not.
	named bool
	tools []messages.Tool // exposed tools; empty unless ready or cached
	// ready says the row's catalog is exposed and requests route to it:
	// the server is ready, or it is lazy and a request starts it.
	ready bool
	// cached says the row lists its server's cached catalog (tools and
	// cat) while the server is not up yet (reconciler/fleet_cache.go).
	cached bool
	// lazy says requests go through the reconciler (Supervisor.use),
	// which starts the server and counts them; connectTimeout bounds
	// their wait for it.
	lazy           bool
	connectTimeout time.Duration
	// handle is the session actor's that takes the server's requests
	// (they run on its lane) and its subscriptions.
	handle  *session.Handle
	exposed map[string]bool
	// callTimeout is the server's call timeout (its own or the default).
	callTimeout time.Duration
	// resetOnProgress and roots are its live relay settings.
	resetOnProgress bool
	roots           []string
	// stderr reads a ready stdio server's live stderr tail; when nil,
	// status.StderrTail (the tail of the last failure) is shown.
	stderr func() []string
	// cat is the rest of the catalog, with its indexes.
	cat rowCatalog
}

func (v *fleetView) load() *fleetSnapshot {
	if s := v.p.Load(); s != nil {
		return s
	}
	return &fleetSnapshot{}
}

// row finds a server by name.
func (s *fleetSnapshot) row(name string) (*serverRow, bool) {
	i, ok := slices.BinarySearchFunc(s.rows, name, func(r *serverRow, n string) int { return strings.Compare(r.status.Name, n) })
	if !ok {
		return nil, false
	}
	return s.rows[i], true
}

// byPrefix finds the server whose exposed prefix is prefix (never "").
func (s *fleetSnapshot) byPrefix(prefix string) (*serverRow, bool) {
	i, ok := slices.BinarySearchFunc(s.prefixed, prefix, comparePrefix)
	if !ok {
		return nil, false
	}
	return s.prefixed[i], true
}

func comparePrefix(r *serverRow, p string) int { return strings.Compare(r.status.Prefix, p) }

func compareName(r *serverRow, n string) int { return strings.Compare(r.status.Name, n) }

// compareOrder orders bare rows: config order, then name.
func compareOrder(r, o *serverRow) int {
	return cmp.Or(r.cat.order.Compare(o.cat.order), strings.Compare(r.status.Name, o.status.Name))
}

// reindex replaces old (nil for a new server) by row (nil for a removed
// one) in a prefix index, keeping it sorted; idx is already a copy.
func reindex(prefixed, bare []*serverRow, old, row *serverRow) ([]*serverRow, []*serverRow) {
	if old != nil && old.named {
		if old.status.Prefix == "" {
			bare = slices.DeleteFunc(bare, func(r *serverRow) bool { return r == old })
		} else if i, ok := slices.BinarySearchFunc(prefixed, old.status.Prefix, comparePrefix); ok && prefixed[i] == old {
			prefixed = slices.Delete(prefixed, i, i+1)
		}
	}
	if row != nil && row.named {
		if row.status.Prefix == "" {
			i, _ := slices.BinarySearchFunc(bare, row, compareOrder)
			bare = slices.Insert(bare, i, row)
		} else if i, ok := slices.BinarySearchFunc(prefixed, row.status.Prefix, comparePrefix); ok {
			// Prefixes are unique in one desired state; a row that still
			// holds the prefix is a server this refresh also rebuilds.
			prefixed[i] = row
		} else {
			prefixed = slices.Insert(prefixed, i, row)
		}
	}
	return prefixed, bare
}

// refreshView swaps in a new snapshot: the rows of the named servers are
// rebuilt from the fleet, the others are shared with the previous snapshot.
func (r *reconcilerActor) refreshView(names []string) {
	old := r.view.load()
	rows, prefixed, bare := old.rows, old.prefixed, old.bare
	if len(names) > 0 {
		rows, prefixed, bare = slices.Clone(old.rows), slices.Clone(old.prefixed), slices.Clone(old.bare)
		// Withdraw every changed row from the prefix index before adding
		// any: two servers may swap prefixes in one change.
		built := make([]*serverRow, len(names))
		for k, name := range names {
			built[k] = r.buildRow(name)
			if i, found := slices.BinarySearchFunc(rows, name, compareName); found {
				prefixed, bare = reindex(prefixed, bare, rows[i], nil)
			}
		}
		for k, name := range names {
			row := built[k]
			prefixed, bare = reindex(prefixed, bare, nil, row)
			i, found := slices.BinarySearchFunc(rows, name, compareName)
			switch {
			case found && row != nil:
				rows[i] = row
			case found:
				rows = slices.Delete(rows, i, i+1)
			case row != nil:
				rows = slices.Insert(rows, i, row)
			}
		}
	}
	r.view.p.Store(&fleetSnapshot{
		generation:   r.fleet.Generation(),
		observed:     r.fleet.ObservedGeneration(),
		configErrors: r.fleet.Diagnostics(),
		rows:         rows,
		prefixed:     prefixed,
		bare:         bare,
		ordered:      byOrder(rows),
	})
}

// buildRow is the fleet's projection of one server (nil if it is not in
// the fleet) plus what only the shell knows: the session actor that takes
// its calls, the live stderr of a ready stdio server, the default call
// timeout.
func (r *reconcilerActor) buildRow(name string) *serverRow {
	fr, ok := r.fleet.Row(name)
	if !ok {
		return nil
	}
	row := &serverRow{status: fr.Status, named: fr.Named, tools: fr.Tools, ready: fr.Listed, cached: fr.Cached, callTimeout: fr.CallTimeout, cat: catalogRow(fr),
		resetOnProgress: fr.ResetTimeoutOnProgress, roots: fr.Roots,
		lazy: fr.Lazy, connectTimeout: startWait(fr.ConnectTimeout, r.env.opts.ConnectTimeout)}
	if row.callTimeout <= 0 {
		row.callTimeout = r.env.opts.CallTimeout
	}
	if ls := r.sessions[fr.Status.Session]; ls != nil {
		row.handle = ls.handle
		if fr.Ready {
			row.stderr = ls.stderr
		}
	}
	if fr.Listed {
		row.exposed = make(map[string]bool, len(row.tools))
		for _, t := range row.tools {
			row.exposed[t.Name] = true
		}
	}
	return row
}

// status copies a snapshot into the public shape.
func (s *fleetSnapshot) status() messages.Status {
	st := messages.Status{
		Generation:         s.generation,
		ObservedGeneration: s.observed,
		Servers:            make([]messages.ServerStatus, 0, len(s.rows)),
		ConfigErrors:       append([]messages.Diagnostic{}, s.configErrors...),
	}
	for _, row := range s.rows {
		ss := row.status
		if row.stderr != nil {
			ss.StderrTail = row.stderr()
		} else {
			ss.StderrTail = append([]string{}, ss.StderrTail...)
		}
		st.Servers = append(st.Servers, ss)
	}
	return st
}

// tools copies the exposed tools of every ready server, and the cached
// ones of every server that shows its cached catalog.
func (s *fleetSnapshot) tools() []messages.Tool {
	out := []messages.Tool{}
	for _, row := range s.rows {
		out = append(out, row.tools...)
	}
	return out
}
