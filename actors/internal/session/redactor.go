package session

import (
	"slices"
	"sync/atomic"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// sessionRedactor is a session's redactor: the server's secrets, and
// those the session obtains while it runs (every token an OAuth refresh,
// a client-credentials request or a step-up brings, every header value a
// headersHelper prints). The OAuth handler and the helper add a secret
// before it is sent or returned, so no text the secret can reach (an
// error, an event, a log line, a listed catalog) is redacted without it.
// Safe for concurrent use: the session's calls redact on goroutines of
// their own, and the handler and the helper learn on the transport's.
//
// It keeps a second redactor for listed catalogs (catalog_redact.go): the
// config's secrets of at least Deps.CatalogMinSecretBytes and the learned
// ones of that length, so that a server cannot show its own bearer token
// in a tool's description to the gateway's clients, the API or the disk
// cache.
type sessionRedactor struct {
	cur atomic.Pointer[redact.Redactor]
	cat atomic.Pointer[redact.Redactor]
	// catalogMin is the shortest learned secret the catalog redactor
	// takes.
	catalogMin int
}

func newSessionRedactor(base, catalog *redact.Redactor, catalogMin int) *sessionRedactor {
	r := &sessionRedactor{catalogMin: catalogMin}
	r.cur.Store(base)
	r.cat.Store(catalog)
	return r
}

// catalog is the catalog redactor as it is now: a list takes it when it
// starts, after the connect has learned the session's secrets. Nil (no
// catalog redactor and nothing learned) redacts nothing.
func (r *sessionRedactor) catalog() *redact.Redactor { return r.cat.Load() }

// Redact removes every secret known so far from text.
func (r *sessionRedactor) Redact(text string) string { return r.cur.Load().Redact(text) }

// learn adds secrets; the ones known stay. Those of at least catalogMin
// bytes join the catalog redactor too (shorter ones are words a
// description may hold).
func (r *sessionRedactor) learn(secrets ...string) {
	if len(secrets) == 0 {
		return
	}
	addTo(&r.cur, secrets)
	long := slices.DeleteFunc(slices.Clone(secrets), func(s string) bool { return len(s) < r.catalogMin })
	if len(long) > 0 {
		addTo(&r.cat, long)
	}
}

// addTo swaps in a redactor that also knows secrets.
func addTo(p *atomic.Pointer[redact.Redactor], secrets []string) {
	for {
		old := p.Load()
		next := redact.New(secrets...)
		if old != nil {
			next = old.With(secrets...)
		}
		if p.CompareAndSwap(old, next) {
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
