package actors_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// pager is an in-memory server whose tools/list pages are answered by
// page (given the cursor asked for) while answerByPage is set; it counts
// the pages it was asked for.
type pager struct {
	asked        atomic.Int64
	answerByPage atomic.Pointer[func(ctx context.Context, cursor string) *mcp.ListToolsResult]
	srv          *mcp.Server
}

func newPager(answer func(ctx context.Context, cursor string) *mcp.ListToolsResult) *pager {
	p := &pager{srv: toolServer(tool("real", "A tool of the first page."))()}
	if answer != nil {
		p.answerByPage.Store(&answer)
	}
	p.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			answer := p.answerByPage.Load()
			if method != "tools/list" || answer == nil {
				return next(ctx, method, req)
			}
			p.asked.Add(1)
			return (*answer)(ctx, req.GetParams().(*mcp.ListToolsParams).Cursor), nil
		}
	})
	return p
}

// freshCursors answers every page with perPage new tools and a cursor it
// never gave before: a list without end.
func freshCursors(perPage int) func(context.Context, string) *mcp.ListToolsResult {
	var n atomic.Int64
	return func(context.Context, string) *mcp.ListToolsResult {
		page := n.Add(1)
		res := &mcp.ListToolsResult{NextCursor: fmt.Sprintf("page-%d", page+1)}
		for i := range perPage {
			res.Tools = append(res.Tools, tool(fmt.Sprintf("t-%d-%d", page, i), "d"))
		}
		return res
	}
}

// A server whose tools/list never ends (a fresh cursor on every page, the
// same cursor again, or ever more tools) is cut at a bounded number of
// pages and items, and failed with an error that says so; a sibling is
// unaffected. Bounded pages of bounded size bound mcpvisor's memory: the
// page counts prove the listing stopped.
func TestTools_EndlessListingIsCutAndFailsOnlyThatServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	endless := newPager(freshCursors(1))
	loop := newPager(func(context.Context, string) *mcp.ListToolsResult {
		return &mcp.ListToolsResult{Tools: []*mcp.Tool{tool("same", "d")}, NextCursor: "again"}
	})
	wide := newPager(freshCursors(500))
	servers := map[string]*pager{"endless": endless, "loop": loop, "wide": wide}
	dial := map[string]func() *mcp.Server{"ok": toolServer(tool("echo", "e"))}
	for name, p := range servers {
		dial[name] = func() *mcp.Server { return p.srv }
	}
	f := newFleet(t, dial)
	_, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "endless", "loop", "wide", "ok")}})

	for _, tc := range []struct {
		server string
		pages  int64
		error  string
	}{
		{"endless", 100, "tools/list: listing cut: the server still had more after 100 pages"},
		{"loop", 2, "tools/list: listing cut: page 2 gave a cursor the server had given before (its pages loop)"},
		{"wide", 21, "tools/list: listing cut after 21 pages: the server has more than 10000 tools"},
	} {
		_, failed := rec.WaitState(ctx, 0, tc.server, messages.StateFailed)
		if !strings.Contains(failed.Error, tc.error) {
			t.Errorf("%s failed with %q, want %q", tc.server, failed.Error, tc.error)
		}
		if got := servers[tc.server].asked.Load(); got != tc.pages {
			t.Errorf("%s was asked for %d pages, want %d", tc.server, got, tc.pages)
		}
	}
	rec.WaitState(ctx, 0, "ok", messages.StateReady)
}

// A re-list after list_changed is bounded the same way: a server that
// starts paging without end is failed, not followed.
func TestTools_EndlessRelistFailsTheServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	p := newPager(nil)
	f := newFleet(t, map[string]func() *mcp.Server{"s": func() *mcp.Server { return p.srv }})
	_, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "s")}})
	rec.WaitState(ctx, 0, "s", messages.StateReady)

	mark := rec.Len()
	answer := freshCursors(1)
	p.answerByPage.Store(&answer)
	p.srv.AddTool(tool("more", "d"), echoHandler) // list_changed
	_, failed := rec.WaitState(ctx, mark, "s", messages.StateFailed)
	if !strings.Contains(failed.Error, "listing cut: the server still had more after 100 pages") {
		t.Fatalf("failed with %q, want the cut listing named", failed.Error)
	}
	if got := p.asked.Load(); got != 100 {
		t.Fatalf("asked for %d pages, want 100", got)
	}
}

// A re-list after list_changed runs under the list timeout: a server that
// never answers it has the listing given up once ListTimeout passes on
// the clock (a warning names the timeout), keeps its tools and stays
// ready.
func TestTools_RelistRunsUnderTheListTimeout(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	lists := mClock.Trap().AfterFunc("session", "list")
	defer lists.Close()
	p := newPager(nil)
	f := newFleet(t, map[string]func() *mcp.Server{"s": func() *mcp.Server { return p.srv }})
	core, logs := observer.New(zap.WarnLevel)
	warned := make(chan struct{}, 1)
	logger := zap.New(core, zap.Hooks(func(e zapcore.Entry) error {
		if e.Message == "list tools after list_changed" {
			select {
			case warned <- struct{}{}:
			default:
			}
		}
		return nil
	}))
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "s")}, ListTimeout: 7 * time.Second, Logger: logger})
	rec.WaitState(ctx, 0, "s", messages.StateReady)

	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // runs before the supervisor's Close
	hang := func(ctx context.Context, _ string) *mcp.ListToolsResult {
		select {
		case <-ctx.Done():
		case <-release:
		}
		return &mcp.ListToolsResult{}
	}
	p.answerByPage.Store(&hang)
	p.srv.AddTool(tool("more", "d"), echoHandler) // list_changed
	call := lists.MustWait(ctx)
	if call.Duration != 7*time.Second {
		t.Fatalf("list timeout armed for %s, want ListTimeout", call.Duration)
	}
	call.MustRelease(ctx)
	// The re-list interval (1s) ends first; with no notification since,
	// nothing starts.
	mClock.Advance(time.Second).MustWait(ctx)
	mClock.Advance(6 * time.Second).MustWait(ctx)
	select {
	case <-warned:
	case <-ctx.Done():
		t.Fatal("the hung re-list was never given up")
	}
	if msg := logs.FilterMessage("list tools after list_changed").All()[0].ContextMap()["error"]; !strings.Contains(fmt.Sprint(msg), "within 7s (list timeout)") {
		t.Fatalf("warning %q, want the list timeout named", msg)
	}
	if tools := sup.Tools(); len(tools) != 1 || tools[0].Name != "real" {
		t.Fatalf("tools after the timed-out re-list = %v, want the old ones kept", tools)
	}
	if st := sup.Status(); st.Servers[0].State != messages.StateReady {
		t.Fatalf("state %s after the timed-out re-list, want ready", st.Servers[0].State)
	}
}
