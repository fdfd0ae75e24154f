package view

import (
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// Row is one server as readers see it: the fleet's projection of it
// (reconciler.Row) plus what only the shell knows, the session that takes
// its requests and a ready stdio server's live stderr. Immutable once
// published.
type Row[S comparable] struct {
	Status messages.ServerStatus
	// named says the row has an exposed prefix (Status.Prefix, maybe
	// empty): the server is in the fleet with a spec, running or not.
	named bool
	// Routable says requests route to the row and its catalog is exposed:
	// the server is ready, or it is lazy and a request starts it.
	Routable bool
	// cached says the row lists its server's cached catalog while the
	// server is not up yet (reconciler/fleet_cache.go): listed, routable
	// only for a lazy server.
	cached bool
	// Lazy says requests go through the fleet actor (which starts the
	// server and counts them); ConnectTimeout bounds their wait for it.
	Lazy           bool
	ConnectTimeout time.Duration
	// Session takes the server's requests (they run on its lane) and its
	// subscriptions; the zero S when it has none.
	Session S
	// CallTimeout is the server's call timeout (its own or the default);
	// ResetOnProgress, Roots and AllowUnsolicitedRequests are its live
	// relay settings.
	CallTimeout              time.Duration
	ResetOnProgress          bool
	Roots                    []string
	AllowUnsolicitedRequests bool
	// stderr reads a ready stdio server's live stderr tail; when nil,
	// Status.StderrTail (the tail of the last failure) is shown.
	stderr func() []string

	tools   []messages.Tool // exposed tools; empty unless routable or cached
	exposed map[string]bool // by name, while routable
	cat     rowCatalog      // the rest of the catalog, with its indexes
}

// Defaults are the timeouts of servers that set none of their own.
type Defaults struct {
	ConnectTimeout, CallTimeout time.Duration
}

// NewRow builds the row of a server from the fleet's row fr, the session
// that serves it (the zero S for none) and, once it is ready, how to read
// its live stderr (nil for none).
func NewRow[S comparable](fr reconciler.Row, session S, stderr func() []string, d Defaults) *Row[S] {
	row := &Row[S]{
		Status: fr.Status, named: fr.Named, Routable: fr.Listed, cached: fr.Cached, Lazy: fr.Lazy,
		ConnectTimeout: fr.ConnectTimeout, Session: session, CallTimeout: fr.CallTimeout,
		ResetOnProgress: fr.ResetTimeoutOnProgress, Roots: fr.Roots, AllowUnsolicitedRequests: fr.AllowUnsolicitedRequests,
		tools: fr.Tools, cat: catalogRow(fr),
	}
	if row.ConnectTimeout <= 0 {
		row.ConnectTimeout = d.ConnectTimeout
	}
	if row.CallTimeout <= 0 {
		row.CallTimeout = d.CallTimeout
	}
	if fr.Ready {
		row.stderr = stderr
	}
	if fr.Listed {
		row.exposed = make(map[string]bool, len(row.tools))
		for _, t := range row.tools {
			row.exposed[t.Name] = true
		}
	}
	return row
}

// ListsURIs reports whether the row lists resources or resource
// templates (where URIs route may change with it).
func (r *Row[S]) ListsURIs() bool {
	return r != nil && len(r.cat.resources)+len(r.cat.templates) > 0
}
