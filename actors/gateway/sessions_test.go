package gateway_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
)

// rawSession speaks the legacy (stateful) protocol over plain HTTP, the way
// a one-shot client does: initialize, initialized, and never a DELETE.
type rawSession struct {
	t        *testing.T
	endpoint string
	hc       *http.Client
}

func newRawSession(t *testing.T, endpoint string) *rawSession {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &rawSession{t: t, endpoint: endpoint, hc: &http.Client{Transport: tr}}
}

// do sends one request (body "" for none) and returns the response, its
// body read in full.
func (s *rawSession) do(ctx context.Context, method, id, body string, headers ...string) (*http.Response, string) {
	s.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, s.endpoint, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	res, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// open starts a session and returns its id and the initialize answer.
func (s *rawSession) open(ctx context.Context) (id, answer string) {
	s.t.Helper()
	res, body := s.do(ctx, http.MethodPost, "", initialize)
	id = res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != http.StatusOK || id == "" {
		s.t.Fatalf("initialize: %s, session %q: %s", res.Status, id, body)
	}
	if res, body := s.do(ctx, http.MethodPost, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); res.StatusCode != http.StatusAccepted {
		s.t.Fatalf("initialized: %s: %s", res.Status, body)
	}
	return id, body
}

// The gateway's event streams carry event ids and a retry: hint, and it
// replays a stream from a Last-Event-ID: its clients can resume a broken
// stream as the spec says.
func TestGateway_HTTPStreamsCanBeResumed(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	endpoint := serveHTTP(t, startGateway(t, &fakeSource{}), gateway.HTTPOptions{Token: testToken})
	s := newRawSession(t, endpoint)
	id, answer := s.open(ctx)
	var eventID string
	sc := bufio.NewScanner(strings.NewReader(answer))
	hint := false
	for sc.Scan() {
		line := sc.Text()
		if line == "retry: 1000" {
			hint = true
		}
		if v, ok := strings.CutPrefix(line, "id: "); ok && eventID == "" {
			eventID = v
		}
	}
	if !hint || eventID == "" {
		t.Fatalf("initialize stream without a retry: 1000 hint or an event id:\n%s", answer)
	}
	getCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, _ := http.NewRequestWithContext(getCtx, http.MethodGet, endpoint, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", eventID)
	res, err := s.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("resuming from %q: %s: %s", eventID, res.Status, b)
	}
}

// Past MaxSessions a new session is refused with a clear 503; one that
// ends (DELETE) makes room again.
func TestGateway_HTTPSessionCap(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	endpoint := serveHTTP(t, startGateway(t, &fakeSource{}), gateway.HTTPOptions{Token: testToken, MaxSessions: 2})
	s := newRawSession(t, endpoint)
	first, _ := s.open(ctx)
	s.open(ctx)
	res, body := s.do(ctx, http.MethodPost, "", initialize)
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "--max-sessions") {
		t.Fatalf("third session: %s: %s; want 503 naming --max-sessions", res.Status, body)
	}
	if res, body := s.do(ctx, http.MethodDelete, first, ""); res.StatusCode/100 != 2 {
		t.Fatalf("DELETE: %s: %s", res.Status, body)
	}
	s.open(ctx)
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// onlyMessage keeps the entries of one message: what the test keeps of
// the logs must not grow with the sessions.
type onlyMessage struct {
	zapcore.Core
	msg string
}

func (c onlyMessage) With(f []zapcore.Field) zapcore.Core {
	return onlyMessage{Core: c.Core.With(f), msg: c.msg}
}

func (c onlyMessage) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if e.Message != c.msg {
		return ce
	}
	return c.Core.Check(e, ce)
}

// 900 clients that open a session and vanish without a DELETE (as the
// TypeScript SDK's close() does) are ended once idle for SessionTimeout:
// the reaper says so, their ids then get 404, and the gateway's heap goes
// back to within 10% of where it was before them. Where it was is after a
// first wave of 900, reaped the same way: the runtime keeps the
// descriptors of goroutines that ended for reuse, and a Go map keeps the
// buckets it grew to (the go-sdk's session tables), which is memory
// bounded by the peak, not lost per session; a leak of even 1 KiB per
// session would fail the second wave. Not parallel: the heap is measured.
func TestGateway_HTTPAbandonedSessionsAreReaped(t *testing.T) {
	ctx := actorstest.Context(t)
	// Nothing the test keeps may grow with the sessions: no clock log,
	// only the reaper's lines.
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	const timeout = time.Minute
	const reapedMsg = "ended idle HTTP sessions"
	core, logs := observer.New(zapcore.InfoLevel)
	gw := gateway.New(&fakeSource{}, zap.New(onlyMessage{Core: core, msg: reapedMsg}))
	h := &harness{t: t, gw: gw}
	trap := clock.Trap().TickerFunc("gateway", "reap")
	endpoint := serveHTTP(t, h, gateway.HTTPOptions{Token: testToken, Clock: clock, SessionTimeout: timeout})
	trap.MustWait(ctx).MustRelease(ctx)
	trap.Close()
	s := newRawSession(t, endpoint)
	cold := heapInUse()

	wave := func() (peak uint64) {
		t.Helper()
		ids := make([]string, 900)
		for i := range ids {
			ids[i], _ = s.open(ctx)
		}
		s.hc.Transport.(*http.Transport).CloseIdleConnections()
		peak = heapInUse()
		logs.TakeAll()
		for range 4 { // the reaper sweeps every timeout/4
			clock.Advance(timeout / 4).MustWait(ctx)
		}
		reaped := logs.TakeAll()
		if len(reaped) != 1 || reaped[0].ContextMap()["sessions"] != int64(900) {
			t.Fatalf("reaper logs %v, want one line for 900 sessions", reaped)
		}
		if res, _ := s.do(ctx, http.MethodPost, ids[0], `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); res.StatusCode != http.StatusNotFound {
			t.Fatalf("a reaped session's request: %s, want 404", res.Status)
		}
		s.hc.Transport.(*http.Transport).CloseIdleConnections()
		return peak
	}
	wave()
	before := heapInUse()
	peak := wave()
	after := heapInUse()
	t.Logf("heap: %d KiB cold, %d KiB after a first wave of 900, %d KiB with 900 more, %d KiB once they were reaped",
		cold>>10, before>>10, peak>>10, after>>10)
	if peak < before+before/10 {
		t.Fatalf("900 sessions cost nothing measurable (%d → %d bytes): the measurement cannot tell", before, peak)
	}
	if after > before+before/10 {
		t.Fatalf("heap %d bytes after reaping, more than 10%% over the %d before", after, before)
	}
}

// A session whose client holds its GET stream open is in use, however
// long: only once the stream is gone does the idle time start.
func TestGateway_HTTPListeningSessionIsKept(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t)
	const timeout = time.Minute
	h := startGateway(t, &fakeSource{})
	trap := clock.Trap().TickerFunc("gateway", "reap")
	endpoint := serveHTTP(t, h, gateway.HTTPOptions{Token: testToken, Clock: clock, SessionTimeout: timeout})
	trap.MustWait(ctx).MustRelease(ctx)
	trap.Close()
	s := newRawSession(t, endpoint)
	id, _ := s.open(ctx)

	getCtx, hangUp := context.WithCancel(ctx)
	defer hangUp()
	req, _ := http.NewRequestWithContext(getCtx, http.MethodGet, endpoint, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	res, err := s.hc.Do(req) // returns once the stream is open: the request is in flight
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", res, err)
	}
	sweep := func() {
		for range 8 { // two timeouts' worth of sweeps
			clock.Advance(timeout / 4).MustWait(ctx)
		}
	}
	sweep()
	if reaped := h.logs.FilterMessage("ended idle HTTP sessions").Len(); reaped != 0 {
		t.Fatalf("a session with an open stream was ended")
	}
	hangUp()
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	// The gateway sees the stream end on its own time: sweep until the
	// session is ended, bounded by the test's context.
	for h.logs.FilterMessage("ended idle HTTP sessions").Len() == 0 {
		if ctx.Err() != nil {
			t.Fatal("the session was never ended after its stream closed")
		}
		sweep()
	}
	if res, _ := s.do(ctx, http.MethodPost, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); res.StatusCode != http.StatusNotFound {
		t.Fatalf("the ended session's request: %s, want 404", res.Status)
	}
}
