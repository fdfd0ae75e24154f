package reconciler

import (
	"maps"
	"slices"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// Lazy servers (autostart "lazy", or the fleet's default). A lazy server
// that is desired is idle: no session, its catalog (listed by its last
// session) still exposed. It runs only while it is used:
//
//	situation                                   action
//	desired, new or changed                     idle (a changed spec's catalog is stale until listed again)
//	idle, a use arrives (ServerWanted)          start; the use waits and is granted once ready
//	  MaxLazyStarts lazy servers starting       pending: it starts when one of their starts ends
//	                                            (fleet_session.go); the use waits on
//	idle, its catalog unknown (neither listed    start to list it; stop once listed, back to idle
//	for its spec nor cached)
//	ready, the last use released                arm the idle timer (idleTimeout; none: keep running)
//	idle timer fires, nothing in use            stop, then idle (not stopped): catalog kept
//	fails while a use waits                     back off and retry as usual; the waits go on
//	fails with nothing waiting                  failed, no retry armed: the next use starts it,
//	                                            once the backoff delay has passed
//	the last waiting use gives up               the retry is disarmed
//	crash loop or restart never                 waiting uses are refused; a resync or a config
//	                                            change makes it idle again
//	resync                                      an idle server is kept; a failed one goes idle
//	                                            (its backoff and crash-loop budget reset)
//	autostart changed to eager                  an idle server starts
//
// A use may also wait for an eager server that is pending or starting (a
// request that came early, while the fleet starts): it is granted once the
// server is ready, and refused when it fails or needs authorization (its
// retry is the fleet's, on backoff, whether or not anything waits). A use
// of an eager server in any other state is refused at once.
//
// Uses are counted per server: waiting ones (answered by a Grant once the
// server is ready) and granted ones (until their ServerReleased). A server
// in use is never stopped for idleness.
type lazyState struct {
	waiting []string        // uses waiting for it to be ready, oldest first
	inUse   map[string]bool // uses granted and not yet released
	// priming says the session was started only to list the catalog.
	priming bool
	// toIdle says the server is stopping to go idle, not away.
	toIdle bool
	// listed is the fingerprint of the spec whose session listed tools
	// and catalog; "" when nothing was listed.
	listed    string
	idleArmed bool
	idleToken uint64
	// retryAt is, for a failed lazy server with no retry armed, the
	// earliest a use starts it again (its backoff delay).
	retryAt time.Time
	// parked says a failed server retries only on resync or a config
	// change (restart never, crash loop).
	parked bool
}

// lazy reports whether s starts only when used.
func (f *Fleet) lazy(s *fleetServer) bool { return f.lazySpec(s.spec) }

// lazySpec reports whether a server of spec starts only when used.
func (f *Fleet) lazySpec(spec messages.ServerSpec) bool {
	switch spec.Autostart {
	case messages.AutostartLazy:
		return true
	case messages.AutostartEager:
		return false
	}
	return f.opts.Autostart == messages.AutostartLazy
}

// used reports whether anything waits for s or holds it.
func (s *fleetServer) used() bool { return len(s.waiting) > 0 || len(s.inUse) > 0 }

// catalogCurrent reports whether s's tools and catalog were listed by a
// session of its current spec.
func (s *fleetServer) catalogCurrent() bool { return s.listed != "" && s.listed == s.spec.Fingerprint }

// listing reports whether s's catalog is exposed: while it is ready, and
// for a lazy server that listed one, between sessions too (idle, starting
// again, stopping to idle, failed), so that its tools stay routable and
// their use starts it.
func (f *Fleet) listing(s *fleetServer) bool {
	if s.state == messages.StateReady && s.cur != nil {
		return true
	}
	if !f.lazy(s) || s.listed == "" {
		return false
	}
	switch s.state {
	case messages.StateIdle, messages.StatePending, messages.StateStarting, messages.StateFailed, messages.StateReady:
		return true
	case messages.StateStopping:
		return s.toIdle
	}
	return false
}

// rest makes s idle: no session, no timer, its failures forgotten.
func (f *Fleet) rest(s *fleetServer, reason string) {
	f.cancelRetry(s)
	f.cancelIdle(s)
	f.queue = slices.DeleteFunc(f.queue, func(q string) bool { return q == s.spec.Name })
	f.stopSession(s.next)
	s.next = nil
	f.stopSession(s.cur)
	s.cur = nil
	s.priming, s.toIdle, s.parked, s.retryAt = false, false, false, time.Time{}
	s.everReady = false // a start from idle is no restart
	f.resetFailures(s)
	f.transition(s, messages.StateIdle, reason, nil)
	f.idled[s.spec.Name] = true
}

func (f *Fleet) serverWanted(m ServerWanted) {
	s := f.servers[m.Server]
	if s == nil {
		f.refuse(m.ID, m.Server, "no such server in the fleet")
		return
	}
	s.priming = false // a use now decides when it stops
	switch s.state {
	case messages.StateReady:
		if s.cur != nil && s.cur.ready {
			f.grant(s, m.ID)
			return
		}
	case messages.StatePending, messages.StateStarting:
		s.waiting = append(s.waiting, m.ID)
		return
	case messages.StateIdle:
		s.waiting = append(s.waiting, m.ID)
		f.launch(s, "used")
		return
	case messages.StateStopping:
		if s.toIdle {
			s.waiting = append(s.waiting, m.ID) // started again once stopped
			return
		}
	case messages.StateFailed:
		if f.lazy(s) && !s.parked {
			s.waiting = append(s.waiting, m.ID)
			if s.next == nil { // else a changed spec is connecting: its outcome decides
				f.retryWhenDue(s)
			}
			return
		}
	}
	f.refuse(m.ID, m.Server, f.notServing(s))
}

// retryWhenDue starts a failed lazy server that a use waits for: now if
// its backoff delay has passed, else when it does.
func (f *Fleet) retryWhenDue(s *fleetServer) {
	if s.retryArmed {
		return // a retry is on its way
	}
	if !f.now.Before(s.retryAt) {
		f.launch(s, "used, retrying")
		return
	}
	d := s.retryAt.Sub(f.now)
	s.nextRetry, s.retryArmed = s.retryAt, true
	f.effect(ArmRetry{Server: s.spec.Name, Token: s.retryToken, Delay: d})
	f.transition(s, messages.StateFailed, "used; retrying in "+d.Round(time.Millisecond).String(), nil)
}

// notServing says why s refuses a use: its state, and its last error.
func (f *Fleet) notServing(s *fleetServer) string {
	reason := string(s.state)
	if s.lastErr != "" {
		reason += ": " + s.lastErr
	}
	return redact.Bound(reason)
}

func (f *Fleet) grant(s *fleetServer, id string) {
	if s.inUse == nil {
		s.inUse = map[string]bool{}
	}
	s.inUse[id] = true
	f.cancelIdle(s)
	f.effect(Grant{ID: id, Server: s.spec.Name, Session: s.cur.id})
}

func (f *Fleet) refuse(id, server, reason string) {
	f.effect(Refuse{ID: id, Server: server, Error: reason})
}

// grantWaiting grants every waiting use of a server that just became ready.
func (f *Fleet) grantWaiting(s *fleetServer) {
	waiting := s.waiting
	s.waiting = nil
	for _, id := range waiting {
		f.grant(s, id)
	}
}

// refuseWaiting refuses every waiting use of s.
func (f *Fleet) refuseWaiting(s *fleetServer, reason string) {
	waiting := s.waiting
	s.waiting = nil
	for _, id := range waiting {
		f.refuse(id, s.spec.Name, reason)
	}
}

func (f *Fleet) serverReleased(m ServerReleased) {
	s := f.servers[m.Server]
	if s == nil {
		return
	}
	if i := slices.Index(s.waiting, m.ID); i >= 0 {
		s.waiting = slices.Delete(s.waiting, i, i+1)
		if len(s.waiting) == 0 && s.state == messages.StateFailed && s.retryArmed && f.lazy(s) {
			// Nobody waits any more: no retry until the next use.
			s.retryAt = s.nextRetry
			f.cancelRetry(s)
			f.transition(s, messages.StateFailed, "nothing waits for it; starts again when used", nil)
		}
	}
	delete(s.inUse, m.ID)
	f.settleIdle(s)
}

// settleIdle arms the idle timer of a ready lazy server nobody uses, or,
// when it was started only to list its catalog, stops it at once.
func (f *Fleet) settleIdle(s *fleetServer) {
	if !f.lazy(s) || s.used() || s.state != messages.StateReady || s.cur == nil || !s.cur.ready || s.next != nil {
		return
	}
	switch {
	case s.priming:
		f.stopToIdle(s, "catalog listed; idle until used")
	case s.spec.IdleTimeout > 0 && !s.idleArmed:
		s.idleArmed = true
		f.effect(ArmIdle{Server: s.spec.Name, Token: s.idleToken, Delay: s.spec.IdleTimeout})
	}
}

func (f *Fleet) cancelIdle(s *fleetServer) {
	if s.idleArmed {
		f.effect(CancelIdle{Server: s.spec.Name})
		s.idleArmed = false
	}
	s.idleToken++
}

func (f *Fleet) idleDue(m IdleDue) {
	s := f.servers[m.Server]
	if s == nil || !s.idleArmed || s.idleToken != m.Token {
		return // cancelled meanwhile
	}
	s.idleArmed = false
	s.idleToken++
	if !f.lazy(s) || s.used() || s.state != messages.StateReady || s.cur == nil || s.next != nil {
		return // in use, or a changed spec connecting: its outcome re-arms the timer
	}
	f.stopToIdle(s, "unused for "+s.spec.IdleTimeout.String())
}

// stopToIdle stops a ready lazy server's session; it is idle once the
// process is gone (sessionStopped).
func (f *Fleet) stopToIdle(s *fleetServer, reason string) {
	f.cancelIdle(s)
	s.priming, s.toIdle = false, true
	f.stopSession(s.next)
	s.next = nil
	f.stopSession(s.cur)
	f.transition(s, messages.StateStopping, reason, nil)
}

// stoppedToIdle is the end of a stop to idle: s is idle, or starts again
// at once for the uses that arrived meanwhile (or because it was made
// eager meanwhile).
func (f *Fleet) stoppedToIdle(s *fleetServer, session uint64) {
	s.toIdle, s.everReady = false, false
	if !f.lazy(s) {
		f.launch(s, "autostart eager")
		return
	}
	f.transition(s, messages.StateIdle, "process gone", func(ev *messages.ServerStateChanged) { ev.Session = session })
	if len(s.waiting) > 0 {
		f.launch(s, "used")
		return
	}
	f.idled[s.spec.Name] = true
}

// primeIdled starts, to list its catalog, each server that went idle in
// this step whose catalog is not known: listed by a session of its spec,
// or in the cache for it. It reports whether it started any.
func (f *Fleet) primeIdled() bool {
	primed := false
	for _, name := range slices.Sorted(maps.Keys(f.idled)) {
		s := f.servers[name]
		if s == nil || s.state != messages.StateIdle || !f.lazy(s) || s.catalogCurrent() || f.cacheKnows(s) {
			continue
		}
		s.priming = true
		f.launch(s, "listing its catalog")
		primed = true
	}
	clear(f.idled)
	return primed
}

// lazyFailed handles the failure of a lazy server (fail has recorded it):
// with uses waiting it backs off as usual; with none it arms nothing and
// the next use starts it once the delay has passed. It reports false when
// the usual handling applies.
func (f *Fleet) lazyFailed(s *fleetServer, m *messages.ServerFailed, loop bool, jitter float64) bool {
	if !f.lazy(s) {
		return false
	}
	s.parked = s.spec.Restart == messages.RestartNever || loop
	if s.parked {
		f.refuseWaiting(s, redact.Bound("failed: "+m.Error))
		return false // the usual reason: waiting for resync or config change
	}
	if len(s.waiting) > 0 {
		return false // the usual backoff, while something waits
	}
	d := f.opts.Backoff.Delay(s.attempt, jitter)
	s.retryAt = f.now.Add(d)
	f.transition(s, messages.StateFailed, "failed; nothing waits for it: starts again when used, not before "+d.Round(time.Millisecond).String(),
		func(ev *messages.ServerStateChanged) {
			ev.Session, ev.Error, ev.StderrTail = m.Session, m.Error, m.StderrTail
		})
	return true
}

// applyAutostart applies a change of autostart or idleTimeout to a server
// whose session is kept.
func (f *Fleet) applyAutostart(s *fleetServer, old messages.ServerSpec) {
	if old.Autostart == s.spec.Autostart && old.IdleTimeout == s.spec.IdleTimeout {
		return
	}
	if !f.lazy(s) {
		f.cancelIdle(s)
		s.priming = false
		wasLazy := f.lazySpec(old)
		if wasLazy && (s.state == messages.StateIdle || s.state == messages.StateFailed && !s.retryArmed && !s.parked) {
			f.launch(s, "autostart eager")
		}
		return
	}
	if old.IdleTimeout != s.spec.IdleTimeout {
		f.cancelIdle(s) // re-armed with the new timeout below
	}
	f.settleIdle(s)
}
