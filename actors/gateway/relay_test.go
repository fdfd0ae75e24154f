package gateway_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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
			ctx := testContext(t)
			r := startRelayRig(t, ctx, nil, nil)
			logA, logB := newProgressLog(), newProgressLog()
			a := r.connect(ctx, p.pin, &mcp.ClientOptions{ProgressNotificationHandler: logA.handler}, demoTools(false)...)
			b := r.connect(ctx, p.pin, &mcp.ClientOptions{ProgressNotificationHandler: logB.handler}, demoTools(false)...)

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
	ctx := testContext(t)
	r := startRelayRig(t, ctx, nil, nil)
	logA, logB, logC := newLogRecorder(), newLogRecorder(), newLogRecorder()
	a := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{LoggingMessageHandler: logA.handler}, demoTools(false)...)
	b := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{LoggingMessageHandler: logB.handler}, demoTools(false)...)
	c := r.connect(ctx, "", &mcp.ClientOptions{LoggingMessageHandler: logC.handler}, demoTools(false)...)
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
	ctx := testContext(t)
	r := startRelayRig(t, ctx, nil, nil)
	model := func(name string) func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: name, Role: "assistant", Content: &mcp.TextContent{Text: name + " says hi"}}, nil
		}
	}
	a := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{CreateMessageHandler: model("model-a")}, demoTools(false)...)
	b := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{CreateMessageHandler: model("model-b")}, demoTools(false)...)
	for cs, want := range map[*mcp.ClientSession]string{a: "model model-a answered: model-a says hi", b: "model model-b answered: model-b says hi"} {
		if got := call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__sample", Arguments: map[string]any{"prompt": "hello"}}); got != want {
			t.Errorf("sample: %q, want %q", got, want)
		}
	}
	// A client that cannot sample is not asked: the server's request
	// fails, and says why.
	c := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{}, demoTools(false)...)
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "demo__sample", Arguments: map[string]any{"prompt": "hello"}})
	if err == nil && !res.IsError {
		t.Errorf("a client without sampling got a sampling answer: %q", text(t, res))
	}
}
