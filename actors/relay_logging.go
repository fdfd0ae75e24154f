//lint:file-ignore SA1019 logging is deprecated from protocol 2026-07-28 on (SEP-2577) but is what this file relays.

package actors

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The journal's share of a server's log messages: a burst of logBurst,
// then logRate a second. A chatty server cannot flood the journal (and
// push out the state changes a client replays); what is left out is
// counted in the next ServerLogged's Dropped. Options.Logging still gets
// every message.
const (
	logBurst = 20
	logRate  = 10.0
)

// maxLogData bounds the text of one logged message in the journal.
const maxLogData = 4 << 10

// logLimiter is a token bucket on the quartz clock.
type logLimiter struct {
	clock   quartz.Clock
	mu      sync.Mutex
	tokens  float64
	last    time.Time
	dropped int
}

func newLogLimiter(clock quartz.Clock) *logLimiter {
	return &logLimiter{clock: clock, tokens: logBurst}
}

// take reports whether one more message may go to the journal, and how
// many were dropped before it (reset by a true answer).
func (l *logLimiter) take() (ok bool, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now("relay", "log-limit")
	if !l.last.IsZero() {
		l.tokens = min(logBurst, l.tokens+now.Sub(l.last).Seconds()*logRate)
	}
	l.last = now
	if l.tokens < 1 {
		l.dropped++
		return false, 0
	}
	l.tokens--
	dropped, l.dropped = l.dropped, 0
	return true, dropped
}

// publishLog puts a log message in the journal, redacted and bounded,
// unless the server's share is spent. The session's notification
// goroutine publishes it: the journal is safe for that, and the message
// belongs to no server state the reconciler keeps.
func (r *sessionRelay) publishLog(p *mcp.LoggingMessageParams) {
	ok, dropped := r.logs.take()
	if !ok {
		return
	}
	data := r.redactor.Redact(logData(p.Data))
	if len(data) > maxLogData {
		data = strings.ToValidUTF8(data[:maxLogData], "") + "…" // not in the middle of a character
	}
	r.env.journal.Publish(&messages.ServerLogged{
		Server: r.server, Session: r.session, Level: string(p.Level),
		Logger: r.redactor.Redact(p.Logger), Data: data, Dropped: dropped,
	})
}

// setLogLevel asks a session's server to log at a level; done (buffered,
// may be nil) gets one value when the server answered or will not be
// asked.
type setLogLevel struct {
	level string
	done  chan<- struct{}
}

// SetLogLevel asks every upstream server that supports logging to send
// its log messages at level (debug ... emergency) and above, now and on
// every later connect; "" stops asking (servers keep the level they
// were given last). Servers on protocol 2026-07-28 have no
// logging/setLevel: they get the level with each call instead (see
// WithLogLevel). It returns once every ready server answered, or ctx
// ended: a call made after it gets messages at that level.
func (s *Supervisor) SetLogLevel(ctx context.Context, level string) error {
	if level != "" && !validLogLevel(level) {
		return fmt.Errorf("log level %q: use one of debug, info, notice, warning, error, critical, alert, emergency", level)
	}
	s.env.logLevel.Store(&level)
	rows := s.view.load().rows
	done := make(chan struct{}, len(rows))
	asked := 0
	for _, row := range rows {
		if row.session != nil {
			s.sys.Root.Send(row.session, &setLogLevel{level: level, done: done})
			asked++
		}
	}
	for range asked {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.env.ending.done:
			return s.Err()
		}
	}
	return nil
}

func validLogLevel(level string) bool {
	switch level {
	case "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency":
		return true
	}
	return false
}

// upstreamLogLevel is the level SetLogLevel asked for last ("" if none).
func (e *environment) upstreamLogLevel() string {
	if p := e.logLevel.Load(); p != nil {
		return *p
	}
	return ""
}

// applyLogLevel sends logging/setLevel to a connected server that
// advertised logging on a protocol that has it, on a goroutine the
// session owns, bounded by the list timeout; done (may be nil) is told
// when that is over.
func (s *sessionActor) applyLogLevel(level string, done chan<- struct{}) {
	cs := s.cs
	var init *mcp.InitializeResult
	if cs != nil {
		init = cs.InitializeResult()
	}
	if level == "" || init == nil || init.Capabilities == nil || init.Capabilities.Logging == nil || init.ProtocolVersion >= statelessProtocol {
		tell(done)
		return
	}
	stop, clock, timeout, log := s.ctx, s.env.clock, s.env.opts.ListTimeout, s.log
	s.env.work.Add(1)
	go func() {
		defer s.env.work.Done()
		defer tell(done)
		ctx, cancel := context.WithCancel(stop)
		defer cancel()
		timer := clock.AfterFunc(timeout, cancel, "session", "set-level")
		defer timer.Stop()
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil && stop.Err() == nil {
			log.Debug("logging/setLevel failed", zapError(s.redactor, err))
		}
	}()
}

// zapError is err as a log field, redacted.
func zapError(r redacting, err error) zap.Field {
	return zap.String("error", r.Redact(err.Error()))
}

// tell sends one value on a buffered done channel, if there is one.
func tell(done chan<- struct{}) {
	if done != nil {
		done <- struct{}{}
	}
}
