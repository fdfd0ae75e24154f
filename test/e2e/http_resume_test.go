package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// streamCutter sits in front of a streamable HTTP handler and lets a test
// cut the connection under a live SSE response (the standalone GET
// stream, or the stream of a tools/call POST), as a proxy's idle timeout
// or a server that polls (SEP-1699) would. Every SSE response starts with
// a retry: hint of 10ms, which the client must honour. While a hold is on,
// GET requests wait before reaching the handler, so that what the server
// sends meanwhile can only reach the client as a replay.
type streamCutter struct {
	next http.Handler
	mu   sync.Mutex
	live map[string]*liveStream // by kind: "get" or "call"
	hold chan struct{}          // closed to release held GETs; nil: none held
	// flowing gets the Last-Event-ID of every GET once its stream is
	// flowing: a cut from then on ends an open stream, not a request
	// still being made.
	flowing chan string
}

type liveStream struct {
	conn net.Conn
	done chan struct{} // closed when the handler returned
}

type connKey struct{}

func newStreamCutter(next http.Handler) *streamCutter {
	return &streamCutter{next: next, live: map[string]*liveStream{}, flowing: make(chan string, 64)}
}

// serve starts an HTTP server on 127.0.0.1 in front of the cutter.
func (c *streamCutter) serve(t *testing.T) *httptest.Server {
	ts := httptest.NewUnstartedServer(c)
	ts.Config.ConnContext = func(ctx context.Context, conn net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, conn)
	}
	ts.Start()
	return ts
}

func (c *streamCutter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	kind := ""
	switch r.Method {
	case http.MethodGet:
		kind = "get"
	case http.MethodPost:
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct{ Method string }
		if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" {
			kind = "call"
		}
	}
	hw := &retryHintWriter{ResponseWriter: w}
	if kind != "" {
		ls := &liveStream{conn: r.Context().Value(connKey{}).(net.Conn), done: make(chan struct{})}
		c.mu.Lock()
		c.live[kind] = ls
		hold := c.hold
		c.mu.Unlock()
		defer close(ls.done)
		if kind == "get" {
			if hold != nil {
				select {
				case <-hold:
				case <-r.Context().Done():
					return
				}
			}
			last := r.Header.Get("Last-Event-ID")
			hw.firstWrite = func() { c.flowing <- last }
		}
	}
	c.next.ServeHTTP(hw, r)
}

// waitFlowing waits for the next GET stream to flow and returns the
// Last-Event-ID it was opened with.
func (c *streamCutter) waitFlowing(ctx context.Context, t *testing.T) string {
	t.Helper()
	select {
	case id := <-c.flowing:
		return id
	case <-ctx.Done():
		t.Fatal("no GET stream opened")
		return ""
	}
}

// holdGETs makes GETs wait until the returned function is called.
func (c *streamCutter) holdGETs() (release func()) {
	hold := make(chan struct{})
	c.mu.Lock()
	c.hold = hold
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.hold = nil
		c.mu.Unlock()
		close(hold)
	}
}

// cut closes the connection under the newest stream of kind and waits
// until the server's handler for it has returned.
func (c *streamCutter) cut(ctx context.Context, t *testing.T, kind string) {
	t.Helper()
	c.mu.Lock()
	ls := c.live[kind]
	c.mu.Unlock()
	if ls == nil {
		t.Fatalf("no %s stream to cut", kind)
	}
	_ = ls.conn.Close()
	select {
	case <-ls.done:
	case <-ctx.Done():
		t.Fatalf("the server never noticed the cut %s stream", kind)
	}
}

// retryHintWriter starts an SSE response with "retry: 10".
type retryHintWriter struct {
	http.ResponseWriter
	started    bool
	firstWrite func() // if set, called after the first write, flushed
}

func (w *retryHintWriter) Write(p []byte) (int, error) {
	if w.started {
		return w.ResponseWriter.Write(p)
	}
	w.started = true
	if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		_, _ = io.WriteString(w.ResponseWriter, "retry: 10\n\n")
	}
	n, err := w.ResponseWriter.Write(p)
	if w.firstWrite != nil {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
		w.firstWrite()
	}
	return n, err
}

func (w *retryHintWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// recordingStore is the go-sdk's memory event store, telling the test
// what it stored.
type recordingStore struct {
	mcp.EventStore
	appended chan []byte
}

func (s *recordingStore) Append(ctx context.Context, session, stream string, data []byte) error {
	err := s.EventStore.Append(ctx, session, stream, data)
	if len(data) > 0 {
		s.appended <- bytes.Clone(data)
	}
	return err
}

// waitStored waits until the store kept a message containing part.
func (s *recordingStore) waitStored(ctx context.Context, t *testing.T, part string) {
	t.Helper()
	for {
		select {
		case data := <-s.appended:
			if strings.Contains(string(data), part) {
				return
			}
		case <-ctx.Done():
			t.Fatalf("the server never stored a message with %q", part)
		}
	}
}

func hasTool(server, tool string) func(messages.Event) bool {
	return func(e messages.Event) bool {
		tc, ok := e.(*messages.ToolsChanged)
		return ok && tc.Server == server && slices.ContainsFunc(tc.Tools, func(t messages.Tool) bool { return t.Name == tool })
	}
}

type noArgs struct{}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// A streamable HTTP upstream that closes its standalone GET stream, and
// later the POST stream of a call in flight, is resumed as the spec says:
// the session reconnects with a GET bearing Last-Event-ID, after the
// server's retry: hint, and gets what the server sent meanwhile replayed.
// A tools/list_changed sent while the client was away is not lost, the call
// succeeds with its answer, the server never leaves ready and is never
// restarted.
func TestHTTP_ClosedStreamsResume(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	store := &recordingStore{EventStore: mcp.NewMemoryEventStore(nil), appended: make(chan []byte, 1024)}
	srv := mcp.NewServer(&mcp.Implementation{Name: "resumable", Version: "1"}, nil)
	entered, finish := make(chan struct{}, 1), make(chan struct{})
	mcp.AddTool(srv, &mcp.Tool{Name: "slow", Description: "answers once the test lets it"},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			entered <- struct{}{}
			<-finish
			return textResult("done"), nil, nil
		})
	addTool := func(name string) {
		mcp.AddTool(srv, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			return textResult(name), nil, nil
		})
	}
	cutter := newStreamCutter(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{EventStore: store}))
	ts := cutter.serve(t)
	t.Cleanup(func() { closeHTTPServer(ts, srv) })
	cfg := writeJSONConfig(t, `{"mcpServers": {"remote": {"type": "http", "url": "`+ts.URL+`/mcp"}}}`)
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff, ProbeInterval: -1})
	rec := actorstest.Record(t, sup)
	rec.WaitState(ctx, 0, "remote", messages.StateReady)
	mark := rec.Len()
	cutter.waitFlowing(ctx, t)

	// A first notification reaches the client live on the GET stream, so
	// the stream has an event id to resume from.
	addTool("early")
	rec.WaitFor(ctx, mark, "early listed", hasTool("remote", "early"))

	// The GET stream is cut; a notification sent before the client is back
	// reaches it as a replay.
	release := cutter.holdGETs()
	cutter.cut(ctx, t, "get")
	addTool("late")
	store.waitStored(ctx, t, "notifications/tools/list_changed")
	release()
	if id := cutter.waitFlowing(ctx, t); id == "" {
		t.Fatal("the GET stream was resumed without Last-Event-ID")
	}
	rec.WaitFor(ctx, mark, "late listed", hasTool("remote", "late"))

	// A call's POST stream is cut mid-call; its answer, sent before the
	// client is back, reaches it as a replay.
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	result := make(chan outcome, 1)
	go func() {
		res, err := sup.CallTool(ctx, "remote__slow", map[string]any{})
		result <- outcome{res, err}
	}()
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the call never reached the server")
	}
	release = cutter.holdGETs()
	cutter.cut(ctx, t, "call")
	close(finish)
	store.waitStored(ctx, t, `"done"`)
	release()
	var got outcome
	select {
	case got = <-result:
	case <-ctx.Done():
		t.Fatal("the call never returned")
	}
	if got.err != nil || testkit.Text(got.res) != "done" {
		t.Fatalf("call = %v, %v; want done", testkit.Text(got.res), got.err)
	}

	if _, _, err := sup.Resync(ctx, true); err != nil { // a barrier through the fleet actor
		t.Fatal(err)
	}
	if changes := rec.StateChanges(mark, "remote"); len(changes) != 0 {
		t.Fatalf("the server changed state: %v\n%s", changes, rec.Dump())
	}
	st := serverStatus(t, sup, "remote")
	if st.State != messages.StateReady || st.Restarts != 0 {
		t.Fatalf("remote is %s with %d restarts, want ready with 0", st.State, st.Restarts)
	}
}

// A server that lost the session (it answers 404 on the session id when
// the client comes back for its stream) is a ServerFailed: that session
// cannot be resumed.
func TestHTTP_LostSessionFails(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "forgetful", Version: "1"}, nil)
	cutter := newStreamCutter(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}))
	ts := cutter.serve(t)
	t.Cleanup(func() { closeHTTPServer(ts, srv) })
	cfg := writeJSONConfig(t, `{"mcpServers": {"remote": {"type": "http", "url": "`+ts.URL+`/mcp"}}}`)
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff, ProbeInterval: -1})
	rec := actorstest.Record(t, sup)
	rec.WaitState(ctx, 0, "remote", messages.StateReady)
	mark := rec.Len()
	for ss := range srv.Sessions() {
		_ = ss.Close() // ends the GET stream; the session id is then unknown
	}
	_, failed := rec.WaitState(ctx, mark, "remote", messages.StateFailed)
	if !strings.Contains(failed.Error, "session not found") {
		t.Fatalf("failure = %q, want the lost session named", failed.Error)
	}
}
