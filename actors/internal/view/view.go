package view

import (
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mcpvisor/mcpvisor/messages"
)

// View holds the newest Snapshot; the fleet actor stores a new one after
// every change, readers Load the one of the moment. S is what a row
// routes requests to (the session actor's handle).
type View[S comparable] struct {
	p atomic.Pointer[Snapshot[S]]
}

// Load is the snapshot of the moment (an empty one before the first
// Store). It never blocks.
func (v *View[S]) Load() *Snapshot[S] {
	if s := v.p.Load(); s != nil {
		return s
	}
	return &Snapshot[S]{}
}

// Store makes s the snapshot readers see.
func (v *View[S]) Store(s *Snapshot[S]) { v.p.Store(s) }

// Snapshot is the fleet as readers see it at one moment; immutable once
// stored. Its rows are shared between snapshots: Next replaces only the
// rows of servers that changed, so its cost follows the change, not the
// fleet.
type Snapshot[S comparable] struct {
	meta    Meta
	rows    []*Row[S] // sorted by name
	ordered []*Row[S] // the routable rows in config order
	// prefixed indexes the rows of servers with a non-empty prefix, sorted
	// by prefix; bare holds those with the empty prefix, in config order
	// (which decides who owns a name two of them expose).
	prefixed, bare []*Row[S]
}

// Meta is what a snapshot says of the fleet as a whole.
type Meta struct {
	Generation, Observed uint64
	ConfigErrors         []messages.Diagnostic
	// ConfigFiles are the config files in precedence order.
	ConfigFiles []string
}

// Row finds a server by name.
func (s *Snapshot[S]) Row(name string) (*Row[S], bool) {
	i, ok := slices.BinarySearchFunc(s.rows, name, compareName[S])
	if !ok {
		return nil, false
	}
	return s.rows[i], true
}

// Rows are every server's rows, sorted by name; the caller must not
// change the slice.
func (s *Snapshot[S]) Rows() []*Row[S] { return s.rows }

// byPrefix finds the server whose exposed prefix is prefix (never "").
func (s *Snapshot[S]) byPrefix(prefix string) (*Row[S], bool) {
	i, ok := slices.BinarySearchFunc(s.prefixed, prefix, comparePrefix[S])
	if !ok {
		return nil, false
	}
	return s.prefixed[i], true
}

func comparePrefix[S comparable](r *Row[S], p string) int { return strings.Compare(r.Status.Prefix, p) }

func compareName[S comparable](r *Row[S], n string) int { return strings.Compare(r.Status.Name, n) }

// Next is s with the rows of names rebuilt by build (nil: the server is
// gone) and the fleet-wide meta; the other rows are shared with s.
func (s *Snapshot[S]) Next(names []string, build func(name string) *Row[S], meta Meta) *Snapshot[S] {
	rows, prefixed, bare := s.rows, s.prefixed, s.bare
	if len(names) > 0 {
		rows, prefixed, bare = slices.Clone(s.rows), slices.Clone(s.prefixed), slices.Clone(s.bare)
		// Withdraw every changed row from the prefix index before adding
		// any: two servers may swap prefixes in one change.
		built := make([]*Row[S], len(names))
		for k, name := range names {
			built[k] = build(name)
			if i, found := slices.BinarySearchFunc(rows, name, compareName[S]); found {
				prefixed, bare = reindex(prefixed, bare, rows[i], nil)
			}
		}
		for k, name := range names {
			row := built[k]
			prefixed, bare = reindex(prefixed, bare, nil, row)
			i, found := slices.BinarySearchFunc(rows, name, compareName[S])
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
	return &Snapshot[S]{meta: meta, rows: rows, prefixed: prefixed, bare: bare, ordered: byOrder(rows)}
}

// reindex replaces old (nil for a new server) by row (nil for a removed
// one) in the prefix indexes, keeping them sorted; they are copies
// already.
func reindex[S comparable](prefixed, bare []*Row[S], old, row *Row[S]) ([]*Row[S], []*Row[S]) {
	if old != nil && old.named {
		if old.Status.Prefix == "" {
			bare = slices.DeleteFunc(bare, func(r *Row[S]) bool { return r == old })
		} else if i, ok := slices.BinarySearchFunc(prefixed, old.Status.Prefix, comparePrefix[S]); ok && prefixed[i] == old {
			prefixed = slices.Delete(prefixed, i, i+1)
		}
	}
	if row != nil && row.named {
		if row.Status.Prefix == "" {
			i, _ := slices.BinarySearchFunc(bare, row, compareOrder[S])
			bare = slices.Insert(bare, i, row)
		} else if i, ok := slices.BinarySearchFunc(prefixed, row.Status.Prefix, comparePrefix[S]); ok {
			// Prefixes are unique in one desired state; a row that still
			// holds the prefix is a server this refresh also rebuilds.
			prefixed[i] = row
		} else {
			prefixed = slices.Insert(prefixed, i, row)
		}
	}
	return prefixed, bare
}

// Status copies a snapshot into the public shape: every row, a ready
// stdio server's live stderr tail read now.
func (s *Snapshot[S]) Status() messages.Status {
	st := messages.Status{
		Generation:         s.meta.Generation,
		ObservedGeneration: s.meta.Observed,
		Servers:            make([]messages.ServerStatus, 0, len(s.rows)),
		ConfigErrors:       append([]messages.Diagnostic{}, s.meta.ConfigErrors...),
		ConfigFiles:        slices.Clone(s.meta.ConfigFiles),
	}
	for _, row := range s.rows {
		ss := row.Status
		if row.stderr != nil {
			ss.StderrTail = row.stderr()
		} else {
			ss.StderrTail = append([]string{}, ss.StderrTail...)
		}
		st.Servers = append(st.Servers, ss)
	}
	return st
}

// Tools copies the exposed tools of every routable server, and the cached
// ones of every server that shows its cached catalog.
func (s *Snapshot[S]) Tools() []messages.Tool {
	out := []messages.Tool{}
	for _, row := range s.rows {
		out = append(out, row.tools...)
	}
	return out
}
