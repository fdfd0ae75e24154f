package session

import (
	"context"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The health probe catches sessions that die without a signal: a stateless
// HTTP server that went away, a wedged process. Every ProbeInterval the
// session pings its server (bounded by ProbeTimeout); ProbeFailures misses
// in a row fail the server. Timers are on the quartz clock; the probe runs
// off the mailbox.

type (
	probeDue    struct{ n uint64 }
	probeResult struct {
		n   uint64
		err error
	}
)

// scheduleProbe arms the next probe. n identifies the schedule, so a probe
// of a replaced connection is ignored.
func (s *sessionActor) scheduleProbe(c actor.Context) {
	if s.deps.ProbeInterval < 0 {
		return // probing disabled
	}
	s.probeN++
	n, self, root := s.probeN, c.Self(), c.ActorSystem().Root
	s.probeTimer = s.deps.Clock.AfterFunc(s.deps.ProbeInterval, func() { root.Send(self, &probeDue{n: n}) }, "session", "probe")
}

func (s *sessionActor) stopProbe() {
	if s.probeTimer != nil {
		s.probeTimer.Stop("session", "probe")
		s.probeTimer = nil
	}
	s.probeN++
}

func (s *sessionActor) probe(c actor.Context, m *probeDue) {
	cs := s.cs
	if m.n != s.probeN || cs == nil {
		return
	}
	self, root, stop, clock, timeout := c.Self(), c.ActorSystem().Root, s.ctx, s.deps.Clock, s.deps.ProbeTimeout
	s.deps.Work.Add(1)
	go func() {
		defer s.deps.Work.Done()
		ctx, cancel := context.WithCancel(stop)
		defer cancel()
		t := clock.AfterFunc(timeout, cancel, "session", "probe-timeout")
		err := ping(ctx, cs)
		t.Stop() // before the result: the next probe's timers find this one gone
		if err != nil && ctx.Err() != nil && stop.Err() == nil {
			err = fmt.Errorf("no answer within %s", timeout)
		}
		root.Send(self, &probeResult{n: m.n, err: err})
	}()
}

func (s *sessionActor) probed(c actor.Context, m *probeResult) {
	if m.n != s.probeN || s.cs == nil {
		return
	}
	if m.err == nil {
		s.probeMisses = 0
		s.scheduleProbe(c)
		return
	}
	s.probeMisses++
	s.log.Debug("health probe missed", zap.Int("misses", s.probeMisses), zap.String("error", s.redactor.Redact(m.err.Error())))
	if s.probeMisses < s.deps.ProbeFailures {
		s.scheduleProbe(c)
		return
	}
	// Declare it dead ourselves: the connection gave no signal. The
	// lifeline then closes it (and its process group) as for a stop.
	s.dropSession()
	s.stopRelists()
	s.failed = true
	c.Send(c.Parent(), &messages.ServerFailed{
		Server:     s.spec.Name,
		Session:    s.id,
		Error:      s.redactor.Redact(fmt.Sprintf("health probe failed %d times in a row: %v", s.probeMisses, m.err)),
		ExitCode:   -1,
		StderrTail: redactLines(s.redactor, s.stderr()),
	})
	s.cancel()
}

// ping asks the server for a sign of life. Protocol 2026-07-28 has no
// ping (a stateless streamable HTTP server answers "method not found"), so
// such sessions are probed with a tools/list, which every server here
// answers; older sessions get a ping. (A server that lets clients cache
// tools/list results answers from that cache until its TTL runs out, so
// its death may be noticed that much later.)
func ping(ctx context.Context, cs *mcp.ClientSession) error {
	if newProtocol(cs) {
		_, err := cs.ListTools(ctx, nil)
		return err
	}
	return cs.Ping(ctx, nil)
}
