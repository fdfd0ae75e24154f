//lint:file-ignore SA1019 logging is deprecated from protocol 2026-07-28 on (SEP-2577) but is what this file relays.

package relay

import (
	"strings"
	"sync"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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
// belongs to no server state the fleet actor keeps.
func (r *Relay) publishLog(p *mcp.LoggingMessageParams) {
	ok, dropped := r.logs.take()
	if !ok {
		return
	}
	data := r.redactor.Redact(logData(p.Data))
	if len(data) > maxLogData {
		data = strings.ToValidUTF8(data[:maxLogData], "") + "…" // not in the middle of a character
	}
	r.deps.Journal.Publish(&messages.ServerLogged{
		Server: r.server, Session: r.session, Level: string(p.Level),
		Logger: r.redactor.Redact(p.Logger), Data: data, Dropped: dropped,
	})
}
