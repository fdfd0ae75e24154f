//lint:file-ignore SA1019 sampling and logging are deprecated from protocol 2026-07-28 on (SEP-2577) but are what these tests relay.

package gateway_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// progressLog records the notifications/progress a client gets.
type progressLog struct {
	mu  sync.Mutex
	got []*mcp.ProgressNotificationParams
	ch  chan struct{}
}

func newProgressLog() *progressLog { return &progressLog{ch: make(chan struct{}, 1024)} }

func (l *progressLog) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	l.mu.Lock()
	l.got = append(l.got, req.Params)
	l.mu.Unlock()
	l.ch <- struct{}{}
}

// waitFor waits until n notifications arrived and returns them as
// "token: progress/total" lines.
func (l *progressLog) waitFor(t *testing.T, ctx context.Context, n int) []string {
	t.Helper()
	for {
		l.mu.Lock()
		have := len(l.got)
		var out []string
		for _, p := range l.got {
			out = append(out, fmt.Sprintf("%v: %v/%v", p.ProgressToken, p.Progress, p.Total))
		}
		l.mu.Unlock()
		if have >= n {
			return out
		}
		select {
		case <-l.ch:
		case <-ctx.Done():
			t.Fatalf("got %d progress notifications, want %d: %v", have, n, out)
		}
	}
}

// Two clients call the same tool at once, each with the same progress
// token of its own: each gets the notifications of its call, under its
// own token, and none of the other's.
func TestRelay_ProgressReachesOnlyItsCaller(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			r := startRelayRig(t, ctx, nil, nil)
			logA, logB := newProgressLog(), newProgressLog()
			a := r.connect(ctx, p.pin, &mcp.ClientOptions{ProgressNotificationHandler: logA.handler}, demoTools()...)
			b := r.connect(ctx, p.pin, &mcp.ClientOptions{ProgressNotificationHandler: logB.handler}, demoTools()...)

			var wg sync.WaitGroup
			for _, c := range []struct {
				cs    *mcp.ClientSession
				steps int
			}{{a, 3}, {b, 5}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					params := &mcp.CallToolParams{Name: "demo__progress", Arguments: map[string]any{"steps": c.steps}}
					params.SetProgressToken("mine")
					if got, want := call(t, ctx, c.cs, params), fmt.Sprintf("sent %d progress notifications", c.steps); got != want {
						t.Errorf("result %q, want %q", got, want)
					}
				}()
			}
			wg.Wait()
			// A last call of one step each is the barrier: a client's
			// notifications arrive in order, so once its own is in,
			// anything misrouted earlier would be too.
			for _, cs := range []*mcp.ClientSession{a, b} {
				params := &mcp.CallToolParams{Name: "demo__progress", Arguments: map[string]any{"steps": 1}}
				params.SetProgressToken("last")
				call(t, ctx, cs, params)
			}
			wantA := []string{"mine: 1/3", "mine: 2/3", "mine: 3/3", "last: 1/1"}
			wantB := []string{"mine: 1/5", "mine: 2/5", "mine: 3/5", "mine: 4/5", "mine: 5/5", "last: 1/1"}
			if diff := cmp.Diff(wantA, logA.waitFor(t, ctx, len(wantA))); diff != "" {
				t.Errorf("client A's progress (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantB, logB.waitFor(t, ctx, len(wantB))); diff != "" {
				t.Errorf("client B's progress (-want +got):\n%s", diff)
			}
		})
	}
}

// logRecorder records the notifications/message a client gets, as
// "logger level data".
type logRecorder struct {
	mu  sync.Mutex
	got []string
	ch  chan struct{}
}

func newLogRecorder() *logRecorder { return &logRecorder{ch: make(chan struct{}, 1024)} }

func (l *logRecorder) handler(_ context.Context, req *mcp.LoggingMessageRequest) {
	l.mu.Lock()
	l.got = append(l.got, fmt.Sprintf("%s %s %v", req.Params.Logger, req.Params.Level, req.Params.Data))
	l.mu.Unlock()
	l.ch <- struct{}{}
}

func (l *logRecorder) waitFor(t *testing.T, ctx context.Context, n int) []string {
	t.Helper()
	for {
		l.mu.Lock()
		got := append([]string{}, l.got...)
		l.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-l.ch:
		case <-ctx.Done():
			t.Fatalf("got %d log messages, want %d: %v", len(got), n, got)
		}
	}
}

func levelsFrom(from, data string) []string {
	all := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	var out []string
	for i, l := range all {
		if i >= slices.Index(all, from) {
			out = append(out, "demo/example "+l+" "+data)
		}
	}
	return out
}

// Each client gets the log messages of its own calls at the level it
// set, tagged with the server's name; the upstream is asked for the most
// verbose level any client set; a client on 2026-07-28 sets its level per
// request; every message is in the journal.
func TestRelay_LogLevelPerClient(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := startRelayRig(t, ctx, nil, nil)
	logA, logB, logC := newLogRecorder(), newLogRecorder(), newLogRecorder()
	a := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{LoggingMessageHandler: logA.handler}, demoTools()...)
	b := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{LoggingMessageHandler: logB.handler}, demoTools()...)
	c := r.connect(ctx, "", &mcp.ClientOptions{LoggingMessageHandler: logC.handler}, demoTools()...)
	for cs, level := range map[*mcp.ClientSession]mcp.LoggingLevel{a: "warning", b: "debug"} {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level}); err != nil {
			t.Fatal(err)
		}
	}
	call(t, ctx, a, &mcp.CallToolParams{Name: "demo__log", Arguments: map[string]any{"message": "from a"}})
	call(t, ctx, b, &mcp.CallToolParams{Name: "demo__log", Arguments: map[string]any{"message": "from b"}})
	call(t, ctx, c, &mcp.CallToolParams{Name: "demo__log", Arguments: map[string]any{"message": "from c"},
		Meta: mcp.Meta{mcp.MetaKeyLogLevel: "error"}})

	if diff := cmp.Diff(levelsFrom("warning", "from a"), logA.waitFor(t, ctx, 5)); diff != "" {
		t.Errorf("client A, level warning (-want +got):\n%s", diff)
	}
	// B set debug: the upstream logged every level for every call, but
	// only B's own call's messages are B's.
	if diff := cmp.Diff(levelsFrom("debug", "from b"), logB.waitFor(t, ctx, 8)); diff != "" {
		t.Errorf("client B, level debug (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(levelsFrom("error", "from c"), logC.waitFor(t, ctx, 4)); diff != "" {
		t.Errorf("client C, level error per request (-want +got):\n%s", diff)
	}
	// The journal has every message the server sent: all eight levels of
	// A's and B's calls (the upstream was asked for debug), four of C's.
	var journal []string
	for i := 0; len(journal) < 20; i++ {
		var e messages.Event
		i, e = r.rec.WaitFor(ctx, i, "a server.log event", func(e messages.Event) bool { _, ok := e.(*messages.ServerLogged); return ok })
		l := e.(*messages.ServerLogged)
		journal = append(journal, l.Server+" "+l.Logger+" "+l.Level+" "+l.Data)
	}
	if want := "demo example debug from a"; journal[0] != want {
		t.Errorf("first journal log message %q, want %q", journal[0], want)
	}
}

// A sampling request made during a client's call is answered by that
// client, while another client that could answer it is connected.
func TestRelay_SamplingAnsweredByCallingClient(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := startRelayRig(t, ctx, nil, nil)
	model := func(name string) func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: name, Role: "assistant", Content: &mcp.TextContent{Text: name + " says hi"}}, nil
		}
	}
	a := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{CreateMessageHandler: model("model-a")}, demoTools()...)
	b := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{CreateMessageHandler: model("model-b")}, demoTools()...)
	for cs, want := range map[*mcp.ClientSession]string{a: "model model-a answered: model-a says hi", b: "model model-b answered: model-b says hi"} {
		if got := call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__sample", Arguments: map[string]any{"prompt": "hello"}}); got != want {
			t.Errorf("sample: %q, want %q", got, want)
		}
	}
	// A client that cannot sample is not asked: its call tells the server
	// (on 2026-07-28, upstream here) it has no sampling, and the server
	// answers that its tool needs it.
	c := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{}, demoTools()...)
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "demo__sample", Arguments: map[string]any{"prompt": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); !res.IsError || !strings.Contains(got, "sample needs sampling") {
		t.Errorf("a client without sampling got %q (isError %v), want the server's sample needs sampling", got, res.IsError)
	}
}

// rootsServer lists its client's roots in its tool "roots" (an input
// request) and signals every notifications/roots/list_changed.
func rootsServer(changed chan<- struct{}) func() *mcp.Server {
	return func() *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "roots", Version: "1"}, &mcp.ServerOptions{
			RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) { changed <- struct{}{} },
		})
		srv.AddTool(&mcp.Tool{Name: "roots", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "roots: " + strings.Join(uris, " ")}}}, nil
		})
		return srv
	}
}

// The servers get the roots of the gateway's client, and a change of the
// client's roots reaches them without a restart.
func TestRelay_ClientRootsReachTheServers(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	changed := make(chan struct{}, 8)
	r := startRelayRig(t, ctx, nil, rootsServer(changed))
	tools := make(chan struct{}, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { tools <- struct{}{} },
	})
	client.AddRoots(&mcp.Root{URI: "file:///work/a"})
	// The server is up first (startRelayRig waits for it): a client that
	// came before it would hand its roots to the server's connect, with
	// no change to announce.
	cs := r.connectClient(ctx, "2025-11-25", client, tools, "demo__roots")
	// The gateway read the client's roots once it initialized, and the
	// running server was told.
	waitSignal(t, ctx, changed, "roots/list_changed after the client connected")
	if got := call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__roots"}); got != "roots: file:///work/a" {
		t.Errorf("%q, want the client's root", got)
	}
	client.AddRoots(&mcp.Root{URI: "file:///work/b"})
	waitSignal(t, ctx, changed, "roots/list_changed after the client's roots changed")
	if got := call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__roots"}); got != "roots: file:///work/a file:///work/b" {
		t.Errorf("%q, want both roots", got)
	}
	if st := r.sup.Status().Servers[0]; st.Restarts != 0 {
		t.Errorf("the server restarted %d times", st.Restarts)
	}
}

func waitSignal(t *testing.T, ctx context.Context, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-ctx.Done():
		t.Fatalf("no %s", what)
	}
}
