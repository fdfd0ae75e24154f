package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// DefaultSessionTimeout is how long a stateful HTTP session may sit idle
// before the gateway ends it.
const DefaultSessionTimeout = 10 * time.Minute

// DefaultMaxSessions caps the stateful HTTP sessions live at once.
const DefaultMaxSessions = 1000

// StreamRetry is the reconnection delay the gateway asks of its clients
// (the SSE retry: field) at the start of every event stream: a client
// whose stream broke comes back after it with Last-Event-ID, and the
// gateway replays what it missed.
const StreamRetry = time.Second

// sessionIDHeader names a stateful session (the spec's Mcp-Session-Id).
const sessionIDHeader = "Mcp-Session-Id"

// sessionTable follows the stateful handler's sessions, so that the
// gateway can end the ones nobody uses and refuse new ones past a cap.
// A session is idle while no request of it is in flight (an open GET
// stream counts as one); the reaper ends those idle longer than timeout,
// every sweep. Ending a session makes the go-sdk forget its id: its
// client then gets 404 and must start again, as the spec says.
//
// The go-sdk's own SessionTimeout is not used: it runs on the real clock
// and counts an open GET stream as idle, so a client that only listens
// would be cut off.
type sessionTable struct {
	server  *mcp.Server
	clock   quartz.Clock
	log     *zap.Logger
	timeout time.Duration // <=0: never reap
	max     int

	mu       sync.Mutex
	live     map[string]*sessionUse
	starting int // initialize requests in flight, each holding a slot
}

type sessionUse struct {
	inflight  int
	idleSince time.Time
}

func newSessionTable(server *mcp.Server, clock quartz.Clock, log *zap.Logger, timeout time.Duration, max int) *sessionTable {
	return &sessionTable{server: server, clock: clock, log: log, timeout: timeout, max: max, live: map[string]*sessionUse{}}
}

// wrap puts the table in front of the stateful handler.
func (t *sessionTable) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(sessionIDHeader)
		if id == "" {
			t.serveNew(next, w, r)
			return
		}
		if t.begin(id) {
			defer t.end(id)
		}
		next.ServeHTTP(w, r)
		if r.Method == http.MethodDelete {
			t.forget(id)
		}
	})
}

// serveNew serves a request that opens a session (an initialize), unless
// the cap is reached: then it is refused with 503.
func (t *sessionTable) serveNew(next http.Handler, w http.ResponseWriter, r *http.Request) {
	t.mu.Lock()
	full := t.max > 0 && len(t.live)+t.starting >= t.max
	if !full {
		t.starting++
	}
	t.mu.Unlock()
	if full {
		w.Header().Set("Retry-After", "60")
		http.Error(w, fmt.Sprintf("the gateway has %d live sessions, its limit (--max-sessions): end one (HTTP DELETE with its Mcp-Session-Id), "+
			"or try again once idle ones are ended (--session-timeout %s)", t.max, t.timeout), http.StatusServiceUnavailable)
		return
	}
	next.ServeHTTP(w, r)
	id := w.Header().Get(sessionIDHeader)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.starting--
	if id != "" && t.known(id) {
		t.live[id] = &sessionUse{idleSince: t.clock.Now("gateway", "session")}
	}
}

// known reports whether the go-sdk still serves session id (an initialize
// that failed leaves none). Called with t.mu held.
func (t *sessionTable) known(id string) bool {
	for ss := range t.server.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// begin marks a request of session id in flight; false if the table does
// not know the id (the go-sdk answers it 404).
func (t *sessionTable) begin(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	u := t.live[id]
	if u == nil {
		return false
	}
	u.inflight++
	return true
}

func (t *sessionTable) end(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if u := t.live[id]; u != nil {
		u.inflight--
		if u.inflight == 0 {
			u.idleSince = t.clock.Now("gateway", "session")
		}
	}
}

func (t *sessionTable) forget(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.remove(id)
}

// remove drops id; an emptied table gets a fresh map, since a Go map never
// gives back what a crowd of sessions made it grow to. Called with t.mu
// held.
func (t *sessionTable) remove(id string) {
	delete(t.live, id)
	if len(t.live) == 0 {
		t.live = map[string]*sessionUse{}
	}
}

// sweepEvery is how often the reaper looks: a quarter of the timeout, at
// most a minute, so a session is ended at most that much past its time.
func (t *sessionTable) sweepEvery() time.Duration {
	return min(t.timeout/4, time.Minute)
}

// reap runs the reaper until ctx ends; the returned Waiter ends with it.
// Without a timeout it runs nothing.
func (t *sessionTable) reap(ctx context.Context) quartz.Waiter {
	if t.timeout <= 0 {
		return doneWaiter{}
	}
	return t.clock.TickerFunc(ctx, t.sweepEvery(), func() error {
		t.sweep()
		return nil
	}, "gateway", "reap")
}

// sweep ends every session idle longer than the timeout and logs what it
// ended.
func (t *sessionTable) sweep() {
	now := t.clock.Now("gateway", "reap")
	t.mu.Lock()
	stale := map[string]bool{}
	for id, u := range t.live {
		if u.inflight == 0 && now.Sub(u.idleSince) >= t.timeout {
			stale[id] = true
			t.remove(id)
		}
	}
	left := len(t.live)
	t.mu.Unlock()
	if len(stale) == 0 {
		return
	}
	var ended []*mcp.ServerSession
	for ss := range t.server.Sessions() {
		if stale[ss.ID()] {
			ended = append(ended, ss)
		}
	}
	clients := map[string]int{}
	for _, ss := range ended {
		clients[clientName(ss)]++
		_ = ss.Close()
	}
	t.log.Info("ended idle HTTP sessions", zap.Int("sessions", len(stale)), zap.Duration("idleFor", t.timeout),
		zap.Strings("clients", summarize(clients)), zap.Int("live", left))
}

// clientName is what a session's client called itself.
func clientName(ss *mcp.ServerSession) string {
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
		return p.ClientInfo.Name + " " + p.ClientInfo.Version
	}
	return "unnamed client"
}

// summarize renders client counts as sorted "name ×n" strings.
func summarize(clients map[string]int) []string {
	out := make([]string, 0, len(clients))
	for name, n := range clients {
		out = append(out, fmt.Sprintf("%s ×%d", strings.TrimSpace(name), n))
	}
	slices.Sort(out)
	return out
}

type doneWaiter struct{}

func (doneWaiter) Wait(...string) error { return nil }

// retryHint starts every event stream with an SSE retry: field, so a
// client whose stream breaks knows when to come back.
func retryHint(next http.Handler) http.Handler {
	hint := fmt.Sprintf("retry: %d\n\n", StreamRetry.Milliseconds())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&retryHintWriter{ResponseWriter: w, hint: hint}, r)
	})
}

type retryHintWriter struct {
	http.ResponseWriter
	hint    string
	started bool
}

func (w *retryHintWriter) Write(p []byte) (int, error) {
	if !w.started {
		w.started = true
		if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			if _, err := io.WriteString(w.ResponseWriter, w.hint); err != nil {
				return 0, err
			}
		}
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController flush the stream underneath.
func (w *retryHintWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
