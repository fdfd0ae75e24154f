package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/quartz"
)

// The go-sdk counts a stream's reconnections that brought no new event
// and fails the session past its budget (streamRetries), and only a new
// event id resets the count. A quiet standalone GET stream behind a proxy
// with an idle timeout brings none: the sixth timeout would fail a healthy
// session. resumeTransport makes a stream that stayed open for
// streamMinLife count as progress: when such a stream ends at an event
// boundary, its body ends with one more event carrying only a synthetic
// id, which the go-sdk takes as progress and sends back as Last-Event-ID
// when it reconnects; the transport then puts back the id the server last
// gave (or none). A stream that ends sooner (a server that accepts and
// closes at once, again and again) still spends the budget, so that loop
// stays bounded.

// streamMinLife is how long a stream must have been open for its end to
// count as progress.
const streamMinLife = time.Second

// syntheticIDPrefix marks the event ids resumeTransport makes up.
const syntheticIDPrefix = "mcpvisor-resume-"

// syntheticIDsKept bounds the ids remembered; only the newest is ever
// sent back.
const syntheticIDsKept = 16

type resumeTransport struct {
	next  http.RoundTripper
	clock quartz.Clock

	mu   sync.Mutex
	n    uint64
	real map[string]string // synthetic id → the server's id it stands for ("" for none)
	ids  []string          // synthetic ids, oldest first
}

func newResumeTransport(next http.RoundTripper, clock quartz.Clock) *resumeTransport {
	return &resumeTransport{next: next, clock: clock, real: map[string]string{}}
}

func (t *resumeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		return t.next.RoundTrip(req)
	}
	last := req.Header.Get("Last-Event-ID")
	if strings.HasPrefix(last, syntheticIDPrefix) {
		real, ok := t.lookup(last)
		if !ok {
			return nil, fmt.Errorf("resume stream: unknown event id %q", last)
		}
		req = req.Clone(req.Context())
		if real == "" {
			req.Header.Del("Last-Event-ID")
		} else {
			req.Header.Set("Last-Event-ID", real)
		}
		last = real
	}
	opened := t.clock.Now("session", "stream") // counted from the request
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, err
	}
	resp.Body = &progressBody{body: resp.Body, t: t, ctx: req.Context(), opened: opened, lastID: last, boundary: true}
	return resp, nil
}

// remember returns a new synthetic id standing for real.
func (t *resumeTransport) remember(real string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	id := fmt.Sprintf("%s%d", syntheticIDPrefix, t.n)
	t.real[id] = real
	t.ids = append(t.ids, id)
	if len(t.ids) > syntheticIDsKept {
		delete(t.real, t.ids[0])
		t.ids = t.ids[1:]
	}
	return id
}

func (t *resumeTransport) lookup(id string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	real, ok := t.real[id]
	return real, ok
}

// progressBody passes an SSE body through, following its event ids and
// whether it sits between events, and ends a stream that lived long
// enough with a synthetic id event.
type progressBody struct {
	body   io.ReadCloser
	t      *resumeTransport
	ctx    context.Context
	opened time.Time

	lastID    string // the id of the last event dispatched, or the request's Last-Event-ID
	pendingID string // an id line of the event being read
	line      []byte // the current line so far (its first bytes only)
	lineLen   int
	boundary  bool // nothing of an event read since the last one ended

	tail    []byte // synthetic bytes still to hand out
	tailErr error  // the body's own error, after them
	ended   bool
}

func (b *progressBody) Read(p []byte) (int, error) {
	if b.ended {
		if len(b.tail) > 0 {
			n := copy(p, b.tail)
			b.tail = b.tail[n:]
			return n, nil
		}
		return 0, b.tailErr
	}
	n, err := b.body.Read(p)
	b.scan(p[:n])
	if err == nil {
		return n, nil
	}
	b.ended, b.tailErr = true, err
	if b.boundary && b.ctx.Err() == nil && !errors.Is(err, context.Canceled) &&
		b.t.clock.Since(b.opened, "session", "stream") >= streamMinLife {
		b.tail = []byte("id: " + b.t.remember(b.lastID) + "\n\n")
	}
	if n > 0 {
		return n, nil
	}
	return b.Read(p)
}

// scan follows the SSE lines in p: an "id:" line names the event being
// read; a blank line dispatches it.
func (b *progressBody) scan(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := 256 - len(b.line); room > 0 {
			b.line = append(b.line, chunk[:min(len(chunk), room)]...)
		}
		b.lineLen += len(chunk)
		if i < 0 {
			if b.lineLen > 0 {
				b.boundary = false
			}
			return
		}
		b.endLine(strings.TrimSuffix(string(b.line), "\r"), b.lineLen)
		b.line, b.lineLen = b.line[:0], 0
		p = p[i+1:]
	}
}

func (b *progressBody) endLine(line string, length int) {
	switch {
	case length == 0 || line == "":
		if !b.boundary && b.pendingID != "" {
			b.lastID = b.pendingID
		}
		b.pendingID, b.boundary = "", true
	case strings.HasPrefix(line, "id:"):
		b.pendingID = strings.TrimPrefix(strings.TrimPrefix(line, "id:"), " ")
		b.boundary = false
	default:
		b.boundary = false
	}
}

func (b *progressBody) Close() error { return b.body.Close() }
