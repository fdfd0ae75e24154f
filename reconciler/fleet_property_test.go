package reconciler_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// Whatever happens (edits, crashes, late reports, timers, resyncs, uses of
// lazy servers, in any order), once sessions connect again, every use is
// released and a resync re-drives what was left failed, the fleet
// converges: every enabled eager entry is ready on its desired version
// with no warning, every lazy one idle (or ready on its desired version),
// nothing else runs, no session is leaked, no timer is left armed, and no
// use was answered twice (the rig checks that as it goes).
func TestFleet_ConvergesWhateverHappens(t *testing.T) {
	t.Parallel()
	opts := reconciler.FleetOptions{
		Backoff:     reconciler.Backoff{Initial: time.Second, Max: 8 * time.Second, Jitter: 0.2},
		CrashLoop:   reconciler.CrashLoop{Failures: 3, Window: time.Minute},
		MaxConnects: 2,
		// Samples of the connecting processes free and retake slots
		// (fleet_connects.go) at random.
		ConnectGrace: 20 * time.Millisecond,
		// One lazy server starts at a time (fleet_session.go), whatever
		// the connect slots do.
		MaxLazyStarts: 1,
	}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		rig := newFleetRig(t, opts)
		// Half the runs start with a catalog cache, which knows some
		// servers' catalogs under some versions.
		for _, name := range []string{"a", "b", "c", "d"} {
			if seed%2 == 0 && rng.IntN(2) == 0 {
				rig.run(fmt.Sprintf("cache %s=v%d tools=echo,cached prompts=p%d", name, 1+rng.IntN(3), rng.IntN(2)))
			}
		}
		var last []string
		for range 80 {
			rig.out = nil
			if e := randomOp(rng, rig); e != nil {
				last = e
			}
		}
		rig.out = nil
		rig.releaseAll()
		rig.drive()
		rig.run("resync")
		rig.drive()
		if err := rig.converged(desiredState(t, rig.gen, last)); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// randomOp does one random thing; it returns the entries of a desired
// state it sent.
func randomOp(rng *rand.Rand, r *fleetRig) []string {
	pick := func(match func(*rigSession) bool) *rigSession {
		var c []*rigSession
		for _, s := range r.sessions {
			if match(s) {
				c = append(c, s)
			}
		}
		if len(c) == 0 {
			return nil
		}
		return c[rng.IntN(len(c))]
	}
	ref := func(s *rigSession) string { return fmt.Sprintf("%s#%d", s.server, s.id) }
	switch rng.IntN(13) {
	case 0, 1:
		entries := []string{} // non-nil: an empty desired state is one too
		for _, name := range []string{"a", "b", "c", "d"} {
			switch n := rng.IntN(10); {
			case n < 2: // absent
			case n == 2:
				entries = append(entries, name+"=invalid")
			case n == 3:
				entries = append(entries, fmt.Sprintf("%s=v%d,disabled", name, 1+rng.IntN(3)))
			case n < 6:
				entries = append(entries, fmt.Sprintf("%s=v%d,lazy%s", name, 1+rng.IntN(3), []string{"", ",idle=1m", ",idle=5s"}[rng.IntN(3)]))
			default:
				entries = append(entries, fmt.Sprintf("%s=v%d", name, 1+rng.IntN(3)))
			}
		}
		r.gen++
		r.desired(r.gen, entries)
		return entries
	case 2, 3:
		if s := pick(func(s *rigSession) bool { return !s.stopped && !s.ready }); s != nil {
			s.ready = true
			r.run("ready " + ref(s))
		}
	case 4:
		if s := pick(func(s *rigSession) bool { return !s.stopped }); s != nil {
			if rng.IntN(6) == 0 { // refused for want of a login: needs-auth
				r.run(fmt.Sprintf(`crash %s auth="login required"`, ref(s)))
			} else {
				r.run(fmt.Sprintf("crash %s status=%d jitter=%.2f", ref(s), rng.IntN(3), rng.Float64()))
			}
		}
	case 5:
		if s := pick(func(s *rigSession) bool { return s.stopping && !s.stopped }); s != nil {
			r.run("stopped " + ref(s))
		}
	case 6:
		r.run(fmt.Sprintf("tick %dms", rng.IntN(3000)))
	case 7:
		if rng.IntN(2) == 0 {
			r.run("resync")
		} else {
			r.run("resync dry")
		}
	case 12:
		if !r.sampling {
			return nil
		}
		// Any session not ready, stale ones included: the fleet must
		// ignore what it no longer waits for.
		var idle, busy []uint64
		for _, s := range r.sessions {
			switch n := rng.IntN(3); {
			case s.ready:
			case n == 0:
				idle = append(idle, s.id)
			case n == 1:
				busy = append(busy, s.id)
			}
		}
		r.sampling = false
		r.step(reconciler.ConnectsSampled{Now: r.now, Idle: idle, Busy: busy})
	case 8:
		if s := pick(func(s *rigSession) bool { return live(s) && s.ready }); s != nil {
			r.run("tools " + ref(s) + " echo,add")
		}
	case 9:
		r.run("use " + []string{"a", "b", "c", "d"}[rng.IntN(4)])
	case 10:
		if open := r.openUses(); len(open) > 0 {
			r.run("release " + open[rng.IntN(len(open))])
		}
	case 11:
		if s := pick(func(s *rigSession) bool { return live(s) && s.ready }); s != nil {
			r.run("prompts " + ref(s) + " p" + fmt.Sprint(rng.IntN(3)))
		}
	}
	return nil
}

// openUses are the uses not yet released, in order.
func (r *fleetRig) openUses() []string {
	var out []string
	for i := 1; i <= r.uses; i++ {
		if id := fmt.Sprintf("u%d", i); !r.released[id] {
			out = append(out, id)
		}
	}
	return out
}

// releaseAll releases every open use, as requests that all end do.
func (r *fleetRig) releaseAll() {
	for _, id := range r.openUses() {
		r.run("release " + id)
	}
}

// drive lets every session connect and every stop finish, firing timers
// as they come due, until nothing moves.
func (r *fleetRig) drive() {
	for range 10000 {
		r.out = nil
		moved := false
		for _, s := range r.sessions {
			switch {
			case s.stopped:
			case s.stopping:
				r.run(fmt.Sprintf("stopped %s#%d", s.server, s.id))
				moved = true
			case !s.ready:
				s.ready = true
				r.run(fmt.Sprintf("ready %s#%d", s.server, s.id))
				moved = true
			}
		}
		if moved {
			continue
		}
		if len(r.timers)+len(r.idleTimers) == 0 {
			return
		}
		var due time.Time
		for _, timers := range []map[string]rigTimer{r.timers, r.idleTimers} {
			for _, tm := range timers {
				if due.IsZero() || tm.due.Before(due) {
					due = tm.due
				}
			}
		}
		r.now = due
		r.fire()
	}
	r.t.Fatal("the fleet never came to rest")
}

func (r *fleetRig) converged(want *messages.DesiredState) error {
	rows := map[string]reconciler.Row{}
	for _, row := range r.fleet.Rows() {
		rows[row.Status.Name] = row
	}
	serving := map[uint64]bool{}
	for _, spec := range want.Servers {
		row, ok := rows[spec.Name]
		delete(rows, spec.Name)
		switch {
		case !ok:
			return fmt.Errorf("%s: no row", spec.Name)
		case spec.Disabled && row.Status.State != messages.StateDisabled:
			return fmt.Errorf("%s: %s, want disabled", spec.Name, renderRow(row, r.now))
		case spec.Disabled:
		case spec.Autostart == messages.AutostartLazy && row.Status.State == messages.StateIdle:
			if row.Status.Session != 0 {
				return fmt.Errorf("%s: %s: idle with a session", spec.Name, renderRow(row, r.now))
			}
		case row.Status.State != messages.StateReady || row.Status.Warning != "":
			return fmt.Errorf("%s: %s, want ready", spec.Name, renderRow(row, r.now))
		case r.session(row.Status.Session).version != spec.Fingerprint:
			return fmt.Errorf("%s: serves %s, want %s", spec.Name, r.session(row.Status.Session).version, spec.Fingerprint)
		default:
			serving[row.Status.Session] = true
		}
	}
	for _, inv := range want.Invalid {
		row, ok := rows[inv.Name]
		delete(rows, inv.Name)
		switch {
		case !ok:
			return fmt.Errorf("%s: no row", inv.Name)
		case row.Status.State == messages.StateReady:
			serving[row.Status.Session] = true // its last valid session is kept
		case row.Lazy && row.Status.Session == 0 && (row.Status.State == messages.StateIdle || row.Status.State == messages.StateFailed):
			// A lazy server kept under its last valid spec: idle, or failed
			// until it is used (a resync retries no invalid entry).
		case row.Status.State == messages.StateNeedsAuth && row.Status.Session == 0:
			// Kept under its last valid spec, waiting for a login (a resync
			// retries no invalid entry).
		case row.Status.State != messages.StateInvalid:
			return fmt.Errorf("%s: %s, want invalid or its last valid session", inv.Name, renderRow(row, r.now))
		}
	}
	for name, row := range rows {
		return fmt.Errorf("%s: %s, but it is not desired", name, renderRow(row, r.now))
	}
	for _, s := range r.sessions {
		if !s.stopped && !serving[s.id] {
			return fmt.Errorf("session %s#%d leaked", s.server, s.id)
		}
	}
	if len(r.timers) > 0 || len(r.idleTimers) > 0 {
		return fmt.Errorf("timers left armed: %v, idle %v", r.timers, r.idleTimers)
	}
	if r.fleet.Generation() != want.Generation || r.fleet.ObservedGeneration() != want.Generation {
		return fmt.Errorf("generations %d/%d, want %d", r.fleet.Generation(), r.fleet.ObservedGeneration(), want.Generation)
	}
	return nil
}
