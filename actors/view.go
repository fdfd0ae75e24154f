package actors

import (
	"sort"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpvisor/mcpvisor/messages"
)

// fleetView is the read side of the fleet: an immutable snapshot that the
// reconciler actor swaps atomically after every change. Readers never block
// and never see a half-applied change.
type fleetView struct {
	p atomic.Pointer[fleetSnapshot]
}

type fleetSnapshot struct {
	status messages.Status
	tools  []messages.Tool // exposed tools of ready servers, sorted by server then name
	routes map[string]route
}

// route is where calls for one server go.
type route struct {
	ready   bool
	session *actor.PID
	tools   map[string]bool
}

func (v *fleetView) load() *fleetSnapshot {
	if s := v.p.Load(); s != nil {
		return s
	}
	return &fleetSnapshot{status: emptyStatus(), routes: map[string]route{}}
}

func emptyStatus() messages.Status {
	return messages.Status{Servers: []messages.ServerStatus{}, ConfigErrors: []messages.Diagnostic{}}
}

// refreshView builds and swaps in a new snapshot of the fleet.
func (r *reconcilerActor) refreshView() {
	snap := &fleetSnapshot{
		status: messages.Status{
			Generation:         r.generation,
			ObservedGeneration: r.observedGen,
			Servers:            make([]messages.ServerStatus, 0, len(r.servers)+len(r.invalid)),
			ConfigErrors:       append([]messages.Diagnostic{}, r.diagnostics...),
		},
		tools:  []messages.Tool{},
		routes: make(map[string]route, len(r.servers)),
	}
	for name, s := range r.servers {
		row := messages.ServerStatus{
			Name: name, Transport: s.spec.Transport, State: s.state, Attempt: s.attempt,
			Restarts: s.restarts, LastError: s.lastErr, Warning: s.warning, NextRetry: s.nextRetry,
			Since: s.since, Source: s.spec.Source, StderrTail: append([]string{}, s.stderrTail...),
		}
		rt := route{}
		if s.cur != nil {
			row.Session, row.PID = s.cur.id, s.cur.osPID
			rt.session = s.cur.pid
		}
		if s.state == messages.StateReady && s.cur != nil {
			exposed := filterTools(s.tools, s.spec)
			row.Tools = len(exposed)
			rt.ready, rt.tools = true, make(map[string]bool, len(exposed))
			for _, t := range exposed {
				rt.tools[t.Name] = true
			}
			snap.tools = append(snap.tools, exposed...)
		}
		snap.status.Servers = append(snap.status.Servers, row)
		snap.routes[name] = rt
	}
	for name, inv := range r.invalid {
		if _, live := r.servers[name]; live {
			continue
		}
		snap.status.Servers = append(snap.status.Servers, messages.ServerStatus{
			Name: name, State: messages.StateInvalid, LastError: inv.Reason, Source: inv.Source, StderrTail: []string{},
		})
	}
	for _, d := range r.desired.Servers {
		if _, live := r.servers[d.Name]; !live && d.Disabled {
			snap.status.Servers = append(snap.status.Servers, messages.ServerStatus{
				Name: d.Name, Transport: d.Transport, State: messages.StateDisabled, Source: d.Source, StderrTail: []string{},
			})
		}
	}
	sort.Slice(snap.status.Servers, func(i, j int) bool { return snap.status.Servers[i].Name < snap.status.Servers[j].Name })
	sort.Slice(snap.tools, func(i, j int) bool {
		a, b := snap.tools[i], snap.tools[j]
		return a.Server < b.Server || a.Server == b.Server && a.Name < b.Name
	})
	r.view.p.Store(snap)
}
