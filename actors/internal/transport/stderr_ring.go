package transport

import (
	"bytes"
	"sync"

	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// stderrRing keeps the last lines a server wrote to stderr, redacted. It is
// the process's stderr writer, so Write runs on the exec package's copying
// goroutine; Tail may be called from anywhere.
//
// Lines are redacted before they are cut to stderrLineMax: a line keeps
// the redactor's Lookahead beyond the cut until it is complete, so a
// secret straddling the cut is found whole. (Cutting first once showed 24
// of a 25-character secret.)
type stderrRing struct {
	mu       sync.Mutex
	lines    []string // ring of at most max complete lines, redacted
	next     int      // index of the oldest line once the ring is full
	partial  []byte   // an unterminated last line, raw, bounded by keep
	max      int
	redactor *redact.Redactor // nil until redactWith; then fixed
	keep     int              // stderrLineMax plus the redactor's lookahead
}

const (
	stderrLines   = 64
	stderrLineMax = 1024
)

func newStderrRing(max int) *stderrRing { return &stderrRing{max: max, keep: stderrLineMax} }

// redactWith sets the redactor. It is called before the process starts,
// so before the first Write.
func (r *stderrRing) redactWith(red *redact.Redactor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.redactor, r.keep = red, stderrLineMax+red.Lookahead()
}

func (r *stderrRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.partial = r.appendBounded(r.partial, p)
			break
		}
		r.partial = r.appendBounded(r.partial, p[:i])
		r.push(r.line(bytes.TrimRight(r.partial, "\r")))
		r.partial = r.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

// line redacts raw and cuts it to stderrLineMax.
func (r *stderrRing) line(raw []byte) string {
	return r.redactor.RedactCut(string(raw), stderrLineMax)
}

func (r *stderrRing) appendBounded(dst, src []byte) []byte {
	room := r.keep - len(dst)
	if room <= 0 {
		return dst
	}
	if len(src) > room {
		src = src[:room]
	}
	return append(dst, src...)
}

func (r *stderrRing) push(line string) {
	if len(r.lines) < r.max {
		r.lines = append(r.lines, line)
		return
	}
	r.lines[r.next] = line
	r.next = (r.next + 1) % r.max
}

// Tail returns the kept lines, oldest first, plus an unterminated last
// line, all redacted.
func (r *stderrRing) Tail() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.lines)+1)
	out = append(out, r.lines[r.next:]...)
	out = append(out, r.lines[:r.next]...)
	if len(r.partial) > 0 {
		out = append(out, r.line(r.partial))
	}
	return out
}
