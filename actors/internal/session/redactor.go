package session

import (
	"sync/atomic"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// sessionRedactor is a session's redactor: the server's secrets, and
// those the session obtains while it runs (every token an OAuth refresh,
// a client-credentials request or a step-up brings). The OAuth handler
// adds a token before it sends or returns it, so no text the token can
// reach (an error, an event, a log line) is redacted without it. Safe for
// concurrent use: the session's calls redact on goroutines of their own,
// and the handler learns on the transport's.
type sessionRedactor struct {
	cur atomic.Pointer[redact.Redactor]
}

func newSessionRedactor(base *redact.Redactor) *sessionRedactor {
	r := &sessionRedactor{}
	r.cur.Store(base)
	return r
}

// Redact removes every secret known so far from text.
func (r *sessionRedactor) Redact(text string) string { return r.cur.Load().Redact(text) }

// learn adds secrets; the ones known stay.
func (r *sessionRedactor) learn(secrets ...string) {
	if len(secrets) == 0 {
		return
	}
	for {
		old := r.cur.Load()
		if r.cur.CompareAndSwap(old, old.With(secrets...)) {
			return
		}
	}
}

// fixed is the redactor as it is now, for what is set up once (a stdio
// server's stderr ring: stdio servers obtain no tokens).
func (r *sessionRedactor) fixed() *redact.Redactor { return r.cur.Load() }

// redactLines redacts each line; the result is never nil.
func redactLines(r relay.Redactor, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = r.Redact(l)
	}
	return out
}
