package session

import (
	"syscall"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/internal/transport"
)

// How a session's process is stopped once its stdin has closed (the
// spec's stdio shutdown): it has a grace to exit by itself, then its whole
// process group gets SIGTERM, then SIGKILL.
//
// Two schedules. A stop the fleet asks for (a server removed, restarted,
// idle) waits StopGrace, then SIGTERM, then a second, then SIGKILL: nobody
// waits on it, and a server that saves state on end of input gets its
// time. The Supervisor's Close (the actor stopping, or the sessions'
// parent context ending) is a client's stop, and clients do not wait:
// Claude Code kills its MCP servers 0.5 s after asking them to stop, the
// TypeScript SDK 4 s after. With Limits.CloseGrace set, Close gives each
// server half of it before SIGTERM and the other half before SIGKILL, and
// a stop already under way when Close comes is hurried the same way (its
// SIGTERM at once). Zero CloseGrace: Close stops as the fleet does.

// stopTimeline is a stop's two delays: from closing stdin to SIGTERM, and
// from SIGTERM to SIGKILL.
type stopTimeline struct{ term, kill time.Duration }

// stopTimeline is the schedule of a stop starting now: Close's when the
// session is being closed and CloseGrace is set, else the fleet's.
func (s *sessionActor) stopTimeline() stopTimeline {
	if s.closing() {
		return stopTimeline{term: s.deps.CloseGrace / 2, kill: s.deps.CloseGrace - s.deps.CloseGrace/2}
	}
	return stopTimeline{term: s.deps.StopGrace, kill: time.Second}
}

// closing reports whether the Supervisor is closing this session (and
// CloseGrace is set): the actor has stopped, or every lifeline's parent
// context has ended.
func (s *sessionActor) closing() bool {
	if s.deps.CloseGrace <= 0 {
		return false
	}
	select {
	case <-s.hurry:
		return true
	case <-s.deps.Context.Done():
		return true
	default:
		return false
	}
}

// escalate stops cn's process group unless done closes first: it waits
// the timeline's grace, then SIGTERMs the group, waits, then SIGKILLs it,
// and returns once done has closed. Whoever closed stdin closes done when
// the process has been reaped (or, for a connect, when it gave up).
func (s *sessionActor) escalate(done <-chan struct{}, cn *transport.Conn) {
	tl := s.stopTimeline()
	if s.waitStop(done, tl.term, "stop-grace") {
		return
	}
	cn.SignalGroup(syscall.SIGTERM)
	if s.waitStop(done, s.stopTimeline().kill, "stop-kill") {
		return
	}
	cn.SignalGroup(syscall.SIGKILL)
	<-done
}

// waitStop waits d (quartz timer tagged "session", tag) for done; it
// reports whether done closed. A stop on the fleet's schedule ends its
// wait early when the Supervisor starts closing the session.
func (s *sessionActor) waitStop(done <-chan struct{}, d time.Duration, tag string) bool {
	timer := s.deps.Clock.NewTimer(d, "session", tag)
	defer timer.Stop()
	var hurry, parent <-chan struct{} // nil: never
	if s.deps.CloseGrace > 0 && !s.closing() {
		hurry, parent = s.hurry, s.deps.Context.Done()
	}
	select {
	case <-done:
		return true
	case <-timer.C:
	case <-hurry:
	case <-parent:
	}
	// A stop that raced the timer has priority: no signal for a server
	// that exited by itself.
	select {
	case <-done:
		return true
	default:
		return false
	}
}
