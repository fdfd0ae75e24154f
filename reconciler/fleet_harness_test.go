package reconciler_test

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// fleetRig drives a reconciler.Fleet the way the fleet actor does,
// playing the session actors and the clock itself: it remembers every
// session the fleet spawned and every timer it armed, so a script can say
// "ready alpha" or "tick 1s" and the rig sends the right input.
type fleetRig struct {
	t     testing.TB
	fleet *reconciler.Fleet
	opts  reconciler.FleetOptions
	start time.Time
	now   time.Time
	gen   uint64
	// resyncs numbers the resyncs r1, r2, ...
	resyncs int

	sessions []*rigSession
	// sampling: a SampleConnects is outstanding.
	sampling bool
	timers   map[string]rigTimer
	// armed is the token of the timer armed last for each server, for a
	// fire that raced its cancel.
	armed map[string]uint64
	// idleTimers are the armed idle timers by server.
	idleTimers map[string]rigTimer
	// uses numbers the uses u1, u2, ...; useServer maps each to its
	// server, answered to whether it had its Grant or Refuse.
	uses      int
	useServer map[string]string
	answered  map[string]bool
	released  map[string]bool
	// cached are the catalog cache's entries the script gave (cache).
	cached []reconciler.CachedCatalog
	// announced is each server's catalog as its catalog events told it,
	// by kind ("tools", "prompts", ...): the keys of the last event's list.
	announced map[string]map[string][]string

	out []string // the rendering of the command being run
	// rows holds each row as last printed: a row is printed when it changed.
	rows map[string]string
}

type rigSession struct {
	server, version string
	id              uint64
	ready, stopping bool
	stopped         bool
}

type rigTimer struct {
	token uint64
	due   time.Time
}

// defaultRigOptions is the production policy with a small connect bound.
var defaultRigOptions = reconciler.FleetOptions{
	Backoff:     reconciler.DefaultBackoff,
	CrashLoop:   reconciler.DefaultCrashLoop,
	MaxConnects: 8,
}

func newFleetRig(t testing.TB, opts reconciler.FleetOptions) *fleetRig {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &fleetRig{t: t, fleet: reconciler.NewFleet(opts), opts: opts, start: start, now: start, timers: map[string]rigTimer{}, armed: map[string]uint64{}, rows: map[string]string{},
		idleTimers: map[string]rigTimer{}, useServer: map[string]string{}, answered: map[string]bool{}, released: map[string]bool{}}
}

// step feeds one input, tracks and renders its effects, then renders the
// rows that changed.
func (r *fleetRig) step(in reconciler.Input) []reconciler.Effect {
	effects := r.fleet.Step(in)
	for _, e := range effects {
		r.track(e)
		r.print(renderEffect(e, r.now))
	}
	r.checkAnnounced()
	if err := reconciler.CheckClaims(r.fleet); err != nil {
		r.t.Fatal(err)
	}
	names, _ := r.fleet.TakeChanged()
	for _, name := range names {
		line := "row " + name + " gone"
		if row, ok := r.fleet.Row(name); ok {
			line = renderRow(row, r.now)
		}
		if r.rows[name] != line {
			r.rows[name] = line
			r.print(line)
		}
	}
	return effects
}

func (r *fleetRig) track(e reconciler.Effect) {
	switch e := e.(type) {
	case reconciler.Publish:
		r.note(e.Event)
		if ev, ok := e.Event.(*messages.ServerStateChanged); ok && !reconciler.LegalTransition(ev.From, ev.To) {
			r.t.Fatalf("%s: %s→%s is not a documented transition (%s)", ev.Server, ev.From, ev.To, ev.Reason)
		}
	case reconciler.Spawn:
		r.sessions = append(r.sessions, &rigSession{server: e.Spec.Name, version: e.Spec.Fingerprint, id: e.Session})
	case reconciler.Stop:
		r.session(e.Session).stopping = true
	case reconciler.ArmRetry:
		if _, armed := r.timers[e.Server]; armed {
			r.t.Fatalf("%s: a second retry timer armed", e.Server)
		}
		r.timers[e.Server] = rigTimer{token: e.Token, due: r.now.Add(e.Delay)}
		r.armed[e.Server] = e.Token
	case reconciler.SampleConnects:
		if r.sampling {
			r.t.Fatalf("a second SampleConnects while one is outstanding")
		}
		r.sampling = true
	case reconciler.CancelRetry:
		if _, armed := r.timers[e.Server]; !armed {
			r.t.Fatalf("%s: cancelled a retry timer that is not armed", e.Server)
		}
		delete(r.timers, e.Server)
	case reconciler.ArmIdle:
		if _, armed := r.idleTimers[e.Server]; armed {
			r.t.Fatalf("%s: a second idle timer armed", e.Server)
		}
		r.idleTimers[e.Server] = rigTimer{token: e.Token, due: r.now.Add(e.Delay)}
	case reconciler.CancelIdle:
		if _, armed := r.idleTimers[e.Server]; !armed {
			r.t.Fatalf("%s: cancelled an idle timer that is not armed", e.Server)
		}
		delete(r.idleTimers, e.Server)
	case reconciler.Grant:
		r.answer(e.ID, e.Server)
		if s := r.session(e.Session); !s.ready || s.stopping {
			r.t.Fatalf("%s: granted on session %d, which is not ready", e.ID, e.Session)
		}
	case reconciler.Refuse:
		r.answer(e.ID, e.Server)
	}
}

func (r *fleetRig) print(line string) { r.out = append(r.out, line) }

// note records what a catalog event announces.
func (r *fleetRig) note(ev messages.Event) {
	set := func(server, kind string, keys []string) {
		if r.announced == nil {
			r.announced = map[string]map[string][]string{}
		}
		if r.announced[server] == nil {
			r.announced[server] = map[string][]string{}
		}
		r.announced[server][kind] = keys
	}
	switch ev := ev.(type) {
	case *messages.ToolsChanged:
		set(ev.Server, "tools", toolNames(ev.Tools))
	case *messages.PromptsChanged:
		set(ev.Server, "prompts", keysOf(ev.Prompts, func(p messages.Prompt) string { return p.Name }))
	case *messages.ResourcesChanged:
		set(ev.Server, "resources", keysOf(ev.Resources, func(r messages.Resource) string { return r.URI }))
	case *messages.ResourceTemplatesChanged:
		set(ev.Server, "templates", keysOf(ev.Templates, func(t messages.ResourceTemplate) string { return t.URITemplate }))
	}
}

// checkAnnounced holds every server's row to what its catalog events
// announced: a follower of the events (the gateway) lists exactly what
// status shows, whether it came from a session or from the cache.
func (r *fleetRig) checkAnnounced() {
	rows := map[string]reconciler.Row{}
	for _, row := range r.fleet.Rows() {
		rows[row.Status.Name] = row
	}
	for server, kinds := range r.announced {
		row := rows[server]
		shows := map[string][]string{
			"tools":     toolNames(row.Tools),
			"prompts":   keysOf(row.Prompts, func(p messages.Prompt) string { return p.Name }),
			"resources": keysOf(row.Resources, func(r messages.Resource) string { return r.URI }),
			"templates": keysOf(row.Templates, func(t messages.ResourceTemplate) string { return t.URITemplate }),
		}
		for kind, keys := range kinds {
			if !slices.Equal(keys, shows[kind]) {
				r.t.Fatalf("%s: %s announced %v, but its row (%s) lists %v", server, kind, keys, renderRow(row, r.now), shows[kind])
			}
		}
	}
}

// answer checks that use id, of server, is answered once.
func (r *fleetRig) answer(id, server string) {
	if r.useServer[id] != server {
		r.t.Fatalf("%s: answered for %s, asked for %q", id, server, r.useServer[id])
	}
	if r.answered[id] {
		r.t.Fatalf("%s: answered twice", id)
	}
	r.answered[id] = true
}

func (r *fleetRig) session(id uint64) *rigSession {
	for _, s := range r.sessions {
		if s.id == id {
			return s
		}
	}
	r.t.Fatalf("no session %d", id)
	return nil
}

// pick finds the session a command names: "alpha#3" exactly, or for
// "alpha" the newest one that match accepts.
func (r *fleetRig) pick(ref string, match func(*rigSession) bool) *rigSession {
	name, num, exact := strings.Cut(ref, "#")
	if exact {
		id, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			r.t.Fatalf("bad session %q", ref)
		}
		return r.session(id)
	}
	for i := len(r.sessions) - 1; i >= 0; i-- {
		if s := r.sessions[i]; s.server == name && match(s) {
			return s
		}
	}
	r.t.Fatalf("%s: no such session", ref)
	return nil
}

func live(s *rigSession) bool { return !s.stopped && !s.stopping }

// desired sends a desired state built from entries ("alpha=v1,deny=x").
func (r *fleetRig) desired(gen uint64, entries []string) {
	r.step(reconciler.DesiredArrived{Now: r.now, Desired: desiredState(r.t, gen, entries)})
}

// fire steps every retry and idle timer due by now, earliest first (a
// retry before an idle timer due at the same time, then by server).
func (r *fleetRig) fire() {
	for {
		var next string
		var nextDue time.Time
		idle := false
		pickFrom := func(timers map[string]rigTimer, isIdle bool) {
			for server, tm := range timers {
				if tm.due.After(r.now) {
					continue
				}
				if next == "" || tm.due.Before(nextDue) || (tm.due.Equal(nextDue) && idle == isIdle && server < next) {
					next, nextDue, idle = server, tm.due, isIdle
				}
			}
		}
		pickFrom(r.timers, false)
		pickFrom(r.idleTimers, true)
		if next == "" {
			return
		}
		if idle {
			tm := r.idleTimers[next]
			delete(r.idleTimers, next)
			r.step(reconciler.IdleDue{Now: r.now, Server: next, Token: tm.token})
			continue
		}
		tm := r.timers[next]
		delete(r.timers, next)
		r.step(reconciler.RetryDue{Now: r.now, Server: next, Token: tm.token})
	}
}

// desiredState builds a desired state. An entry is name=version[,option...]
// with options disabled, never (restart policy), allow=a+b, deny=a+b,
// lazy, eager, idle=D (idle timeout); or name=invalid, name=untrusted or
// name=needs-input.
func desiredState(t testing.TB, gen uint64, entries []string) *messages.DesiredState {
	d := &messages.DesiredState{Generation: gen, Servers: []messages.ServerSpec{}, Invalid: []messages.InvalidServer{}}
	for i, e := range entries {
		name, rest, ok := strings.Cut(e, "=")
		if !ok {
			t.Fatalf("entry %q: want name=version", e)
		}
		opts := strings.Split(rest, ",")
		src := messages.Position{Path: "mcp.json", Line: i + 1, Column: 5}
		switch opts[0] {
		case "invalid":
			d.Invalid = append(d.Invalid, messages.InvalidServer{Name: name, Source: src, Reason: "args: want a list of strings"})
			continue
		case "untrusted":
			d.Invalid = append(d.Invalid, messages.InvalidServer{Name: name, Source: src, State: messages.StateUntrusted,
				Reason: "untrusted: the entry changed since the file was approved (approve it: mcpvisor trust " + src.Path + ")"})
			continue
		case "needs-input":
			d.Invalid = append(d.Invalid, messages.InvalidServer{Name: name, Source: src, State: messages.StateNeedsInput,
				Reason: `input "token" has no value: run ` + "`mcpvisor input set token`" + ` (or set MCPVISOR_INPUT_token)`})
			continue
		}
		s := messages.ServerSpec{Name: name, Transport: messages.TransportStdio, Command: "srv", Args: []string{opts[0]}, Source: src, Fingerprint: opts[0]}
		for _, o := range opts[1:] {
			key, val, _ := strings.Cut(o, "=")
			switch key {
			case "disabled":
				s.Disabled = true
			case "never":
				s.Restart = messages.RestartNever
			case "allow":
				s.AllowTools = strings.Split(val, "+")
			case "deny":
				s.DenyTools = strings.Split(val, "+")
			case "lazy":
				s.Autostart = messages.AutostartLazy
			case "eager":
				s.Autostart = messages.AutostartEager
			case "idle":
				s.IdleTimeout = duration(t, val)
			default:
				t.Fatalf("entry %q: unknown option %q", e, o)
			}
		}
		d.Servers = append(d.Servers, s)
	}
	sort.Slice(d.Servers, func(i, j int) bool { return d.Servers[i].Name < d.Servers[j].Name })
	return d
}

func tools(server string, names []string) []messages.Tool {
	out := []messages.Tool{}
	for _, n := range names {
		hash := n
		n, h, ok := strings.Cut(n, "@") // echo@2: same name, other hash
		if ok {
			hash = n + h
		}
		out = append(out, messages.Tool{Server: server, Name: n, Hash: hash})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// catalogItems builds items from names, "x@2" being x with another hash.
func catalogItems[T any](names []string, make func(key, hash string) T) []T {
	out := []T{}
	for _, n := range names {
		hash := n
		n, h, ok := strings.Cut(n, "@")
		if ok {
			hash = n + h
		}
		out = append(out, make(n, hash))
	}
	return out
}

func prompts(server string, names []string) []messages.Prompt {
	out := catalogItems(names, func(k, h string) messages.Prompt { return messages.Prompt{Server: server, Name: k, Hash: h} })
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func resources(server string, uris []string) []messages.Resource {
	out := catalogItems(uris, func(k, h string) messages.Resource { return messages.Resource{Server: server, URI: k, Hash: h} })
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

func templates(server string, uris []string) []messages.ResourceTemplate {
	out := catalogItems(uris, func(k, h string) messages.ResourceTemplate {
		return messages.ResourceTemplate{Server: server, URITemplate: k, Hash: h}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].URITemplate < out[j].URITemplate })
	return out
}

func skipped(server string, keys []string) []messages.CatalogItemSkipped {
	var out []messages.CatalogItemSkipped
	for _, k := range keys {
		out = append(out, messages.CatalogItemSkipped{Server: server, Kind: messages.KindPrompts, Key: k, Reason: "description too large"})
	}
	return out
}

// renderDiff is "+added -removed ~changed".
func renderDiff(added, removed, changed []string) string {
	var parts []string
	for _, n := range added {
		parts = append(parts, "+"+n)
	}
	for _, n := range removed {
		parts = append(parts, "-"+n)
	}
	for _, n := range changed {
		parts = append(parts, "~"+n)
	}
	return strings.Join(parts, " ")
}

// The rendering: one line per effect, then one per changed row.

func renderEffect(e reconciler.Effect, now time.Time) string {
	switch e := e.(type) {
	case reconciler.Spawn:
		return fmt.Sprintf("spawn %s#%d %s", e.Spec.Name, e.Session, e.Spec.Fingerprint)
	case reconciler.Stop:
		return fmt.Sprintf("stop %s#%d", e.Server, e.Session)
	case reconciler.ArmRetry:
		return fmt.Sprintf("timer %s %s", e.Server, e.Delay)
	case reconciler.CancelRetry:
		return fmt.Sprintf("cancel timer %s", e.Server)
	case reconciler.ArmIdle:
		return fmt.Sprintf("idle timer %s %s", e.Server, e.Delay)
	case reconciler.CancelIdle:
		return fmt.Sprintf("cancel idle timer %s", e.Server)
	case reconciler.Grant:
		return fmt.Sprintf("grant %s %s#%d", e.ID, e.Server, e.Session)
	case reconciler.Refuse:
		return fmt.Sprintf("refuse %s %s: %s", e.ID, e.Server, e.Error)
	case reconciler.SampleConnects:
		return fmt.Sprintf("sample connects in %s", e.Delay)
	case reconciler.Publish:
		return renderEvent(e.Event)
	case reconciler.CacheCatalog:
		return fmt.Sprintf("cache %s %s:%s", e.Spec.Name, e.Spec.Fingerprint, renderEntry(e.Entry))
	case reconciler.ForgetCatalog:
		return fmt.Sprintf("forget cached %s", e.Server)
	case reconciler.Reply:
		switch m := e.Message.(type) {
		case *messages.ResyncPlanned:
			return fmt.Sprintf("reply %s planned %d: %s", e.ID, m.Generation, renderSteps(m.Steps))
		case *messages.ResyncCompleted:
			return fmt.Sprintf("reply %s completed", e.ID)
		}
	}
	return fmt.Sprintf("?? %T", e)
}

func renderEvent(ev messages.Event) string {
	switch ev := ev.(type) {
	case *messages.ServerStateChanged:
		line := fmt.Sprintf("%s: %s → %s (%s)", ev.Server, ev.From, ev.To, ev.Reason)
		if ev.Error != "" {
			line += fmt.Sprintf(" error=%q", ev.Error)
		}
		return line
	case *messages.ToolsChanged:
		var parts []string
		for _, n := range ev.Added {
			parts = append(parts, "+"+n)
		}
		for _, n := range ev.Removed {
			parts = append(parts, "-"+n)
		}
		for _, n := range ev.Changed {
			parts = append(parts, "~"+n)
		}
		return fmt.Sprintf("%s tools: %s", ev.Server, strings.Join(parts, " "))
	case *messages.PromptsChanged:
		return fmt.Sprintf("%s prompts: %s", ev.Server, renderDiff(ev.Added, ev.Removed, ev.Changed))
	case *messages.ResourcesChanged:
		return fmt.Sprintf("%s resources: %s", ev.Server, renderDiff(ev.Added, ev.Removed, ev.Changed))
	case *messages.ResourceTemplatesChanged:
		return fmt.Sprintf("%s templates: %s", ev.Server, renderDiff(ev.Added, ev.Removed, ev.Changed))
	case *messages.CatalogConflict:
		return fmt.Sprintf("conflict %s %s (%d): %s owns it, not %s", ev.Kind, ev.Key, ev.Count, ev.Winner, ev.Loser)
	case *messages.CatalogItemSkipped:
		return fmt.Sprintf("%s skipped %s %s: %s", ev.Server, ev.Kind, ev.Key, ev.Reason)
	case *messages.PlanComputed:
		dry := ""
		if ev.DryRun {
			dry = " (dry run)"
		}
		return fmt.Sprintf("plan %d%s: %s", ev.Generation, dry, renderSteps(ev.Steps))
	case *messages.PlanApplied:
		return fmt.Sprintf("applied %d", ev.Generation)
	case *messages.ResyncCompleted:
		var parts []string
		for _, o := range ev.Outcomes {
			p := o.Server + "=" + string(o.State)
			if o.Error != "" {
				p += fmt.Sprintf(" (%s)", o.Error)
			}
			parts = append(parts, p)
		}
		if len(parts) == 0 {
			parts = []string{"nothing to wait for"}
		}
		return fmt.Sprintf("resync %s completed: %s", ev.ID, strings.Join(parts, ", "))
	}
	return fmt.Sprintf("?? %T", ev)
}

func renderSteps(steps []messages.PlanStep) string {
	if len(steps) == 0 {
		return "nothing"
	}
	parts := make([]string, len(steps))
	for i, st := range steps {
		parts[i] = fmt.Sprintf("%s %s (%s)", st.Server, st.Action, st.Reason)
	}
	return strings.Join(parts, ", ")
}

// renderRow shows a status row; zero fields are left out.
func renderRow(row reconciler.Row, now time.Time) string {
	st := row.Status
	parts := []string{"row", st.Name, string(st.State)}
	add := func(key string, v any, show bool) {
		if show {
			parts = append(parts, fmt.Sprintf("%s=%v", key, v))
		}
	}
	add("session", st.Session, st.Session != 0)
	add("pid", st.PID, st.PID != 0)
	add("tools", strings.Join(toolNames(row.Tools), "+"), len(row.Tools) > 0)
	add("prompts", st.Prompts, st.Prompts != 0)
	add("resources", st.Resources, st.Resources != 0)
	add("templates", st.Templates, st.Templates != 0)
	add("attempt", st.Attempt, st.Attempt != 0)
	add("restarts", st.Restarts, st.Restarts != 0)
	add("retry", "+"+st.NextRetry.Sub(now).String(), !st.NextRetry.IsZero())
	if row.Cached {
		parts = append(parts, "cached")
	}
	if row.Lazy {
		parts = append(parts, "lazy")
		if row.Listed && !row.CatalogCurrent && !row.Cached {
			parts = append(parts, "stale")
		}
	}
	line := strings.Join(parts, " ")
	if st.LastError != "" {
		line += fmt.Sprintf(" error=%q", st.LastError)
	}
	if st.Warning != "" {
		line += fmt.Sprintf(" warning=%q", st.Warning)
	}
	return line
}

// renderEntry lists a cached catalog's items by kind.
func renderEntry(e reconciler.CachedCatalog) string {
	var b strings.Builder
	list := func(kind string, keys []string) {
		if len(keys) > 0 {
			fmt.Fprintf(&b, " %s=%s", kind, strings.Join(keys, ","))
		}
	}
	list("tools", toolNames(e.Tools))
	list("prompts", keysOf(e.Prompts, func(p messages.Prompt) string { return p.Name }))
	list("resources", keysOf(e.Resources, func(r messages.Resource) string { return r.URI }))
	list("templates", keysOf(e.Templates, func(t messages.ResourceTemplate) string { return t.URITemplate }))
	return b.String()
}

func keysOf[T any](items []T, key func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = key(it)
	}
	return out
}

func toolNames(ts []messages.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return slices.Clip(out)
}
