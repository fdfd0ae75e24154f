//lint:file-ignore SA1019 logging is deprecated from protocol 2026-07-28 on (SEP-2577) but is what this test relays.

package actors_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/coder/quartz"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
	"github.com/mcpvisor/mcpvisor/messages"
)

func twoWayServer() *mcp.Server {
	return exampleserver.New(exampleserver.Options{Name: "example", TwoWay: true})
}

// callWithProgress calls server__progress for steps notifications and
// returns those the callback had got when CallTool returned.
func callWithProgress(t *testing.T, ctx context.Context, sup *actors.Supervisor, server string, steps int) []messages.Progress {
	t.Helper()
	var mu sync.Mutex
	var got []messages.Progress
	_, err := sup.CallTool(ctx, server+"__progress", map[string]any{"steps": steps}, actors.WithProgress(func(p messages.Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]messages.Progress{}, got...)
}

// A call returns only once every notifications/progress the server sent
// before its answer reached the callback, in order (the go-sdk hands the
// answer over first): over stdio-like pipes and over streamable HTTP.
func TestRelay_ProgressAllDeliveredBeforeTheCallReturns(t *testing.T) {
	t.Parallel()
	const steps = 200
	check := func(t *testing.T, got []messages.Progress) {
		t.Helper()
		if len(got) != steps {
			t.Fatalf("%d of %d notifications before the call returned", len(got), steps)
		}
		for i, p := range got {
			if p.Progress != float64(i+1) || p.Total != steps || p.Server != "up" {
				t.Fatalf("notification %d is %+v", i, p)
			}
		}
	}
	t.Run("pipe", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		f := newFleet(t, map[string]func() *mcp.Server{"up": twoWayServer})
		sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{ConfigPaths: []string{configFor(t, "up")}})
		rec.WaitState(ctx, 0, "up", messages.StateReady)
		check(t, callWithProgress(t, ctx, sup, "up", steps))
	})
	t.Run("streamable-http", func(t *testing.T) {
		t.Parallel()
		ctx := actorstest.Context(t)
		srv := twoWayServer()
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		t.Cleanup(hs.Close)
		path := filepath.Join(t.TempDir(), "mcp.json")
		writeConfig(t, path, map[string]any{"up": map[string]any{"type": "http", "url": hs.URL}})
		sup, rec := startWithDial(t, quartz.NewMock(t), func(messages.ServerSpec) (mcp.Transport, error) { return nil, nil }, actors.Options{ConfigPaths: []string{path}})
		rec.WaitState(ctx, 0, "up", messages.StateReady)
		check(t, callWithProgress(t, ctx, sup, "up", steps))
	})
}

// A caller slow to take its progress holds up nothing else: while one
// call's callback is stuck, another call to the same server is answered
// (the session's reader never waits for a callback).
func TestRelay_StuckProgressCallbackHoldsUpNoOtherCall(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	f := newFleet(t, map[string]func() *mcp.Server{"up": twoWayServer})
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{ConfigPaths: []string{configFor(t, "up")}})
	rec.WaitState(ctx, 0, "up", messages.StateReady)
	stuck, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	first := make(chan error, 1)
	go func() {
		_, err := sup.CallTool(ctx, "up__progress", map[string]any{"steps": 3}, actors.WithProgress(func(messages.Progress) {
			once.Do(func() { close(stuck) })
			select {
			case <-release:
			case <-ctx.Done():
			}
		}))
		first <- err
	}()
	select {
	case <-stuck:
	case <-ctx.Done():
		t.Fatal("no progress reached the callback")
	}
	res, err := sup.CallTool(ctx, "up__echo", map[string]any{"message": "still here"})
	if err != nil || res.IsError {
		t.Fatalf("the other call: %v %+v", err, res)
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("the call with progress: %v", err)
	}
}

// GetPrompt and ReadResource take the same options: progress from the
// server reaches the callback before they return.
func TestRelay_ProgressOfPromptsAndReads(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	report := func(ctx context.Context, ss *mcp.ServerSession, token any) {
		if token != nil {
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 1})
		}
	}
	srv := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
		s.AddPrompt(&mcp.Prompt{Name: "p"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			report(ctx, req.Session, req.Params.GetProgressToken())
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
		})
		s.AddResource(&mcp.Resource{URI: "example://r", Name: "r"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			report(ctx, req.Session, req.Params.GetProgressToken())
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "example://r", Text: "r"}}}, nil
		})
		return s
	}
	f := newFleet(t, map[string]func() *mcp.Server{"slow": srv})
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{ConfigPaths: []string{configFor(t, "slow")}})
	rec.WaitState(ctx, 0, "slow", messages.StateReady)
	var got []string
	progress := actors.WithProgress(func(p messages.Progress) { got = append(got, p.Server) })
	if _, err := sup.GetPrompt(ctx, "slow__p", nil, progress); err != nil {
		t.Fatal(err)
	}
	if _, err := sup.ReadResource(ctx, "example://r", progress); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Errorf("got %d progress notifications, want one from each: %v", len(got), got)
	}
}

// SetLogLevel reaches a server on protocol 2025-11-25 as logging/setLevel
// before it returns; the server's messages go to Options.Logging (all of
// a call's before the call returns) and, as server.log, to the journal.
func TestRelay_SetLogLevelReachesTheServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	srv := twoWayServer()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	path := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, path, map[string]any{"up": map[string]any{"type": "http", "url": hs.URL}})
	var mu sync.Mutex
	var got []string
	opts := actors.Options{ConfigPaths: []string{path}, Logging: func(_ context.Context, server string, p *mcp.LoggingMessageParams) {
		mu.Lock()
		got = append(got, server+" "+string(p.Level))
		mu.Unlock()
	}}
	sup, rec := startWithDial(t, quartz.NewMock(t), func(messages.ServerSpec) (mcp.Transport, error) { return nil, nil }, opts)
	rec.WaitState(ctx, 0, "up", messages.StateReady)
	if err := sup.SetLogLevel(ctx, "error"); err != nil {
		t.Fatal(err)
	}
	if _, err := sup.CallTool(ctx, "up__log", map[string]any{"message": "m"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	want := []string{"up error", "up critical", "up alert", "up emergency"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log messages (-want +got):\n%s", diff)
	}
	mu.Unlock()
	_, e := rec.WaitFor(ctx, 0, "server.log", func(e messages.Event) bool { _, ok := e.(*messages.ServerLogged); return ok })
	if l := e.(*messages.ServerLogged); l.Server != "up" || l.Level != "error" || l.Data != "m" {
		t.Errorf("first server.log: %+v", l)
	}
	if err := sup.SetLogLevel(ctx, "loud"); err == nil {
		t.Error("SetLogLevel took a level that is not one")
	}
}
