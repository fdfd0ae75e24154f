package actors

import (
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

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
}

// serverRow is one server as readers see it; immutable once published.
type serverRow struct {
	status messages.ServerStatus
	tools  []messages.Tool // exposed tools; empty unless ready
	ready  bool
	// session receives the server's tool calls.
	session *actor.PID
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

// refreshView swaps in a new snapshot: the rows of the named servers are
// rebuilt from the fleet, the others are shared with the previous snapshot.
func (r *reconcilerActor) refreshView(names []string) {
	old := r.view.load()
	rows := old.rows
	if len(names) > 0 {
		rows = slices.Clone(old.rows)
		for _, name := range names {
			row := r.buildRow(name)
			i, found := slices.BinarySearchFunc(rows, name, func(x *serverRow, n string) int { return strings.Compare(x.status.Name, n) })
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
	row := &serverRow{status: fr.Status, tools: fr.Tools, ready: fr.Ready, callTimeout: fr.CallTimeout, cat: catalogRow(fr),
		resetOnProgress: fr.ResetTimeoutOnProgress, roots: fr.Roots}
	if row.callTimeout <= 0 {
		row.callTimeout = r.env.opts.CallTimeout
	}
	if ls := r.sessions[fr.Status.Session]; ls != nil {
		row.session = ls.pid
		if fr.Ready {
			row.stderr = ls.stderr
		}
	}
	if fr.Ready {
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

// tools copies the exposed tools of every ready server.
func (s *fleetSnapshot) tools() []messages.Tool {
	out := []messages.Tool{}
	for _, row := range s.rows {
		out = append(out, row.tools...)
	}
	return out
}
