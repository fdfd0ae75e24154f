package actors_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// catalogServer is an in-memory server with prompts, resources, a
// template, subscriptions and completion; it counts the subscriptions it
// was asked for.
type catalogServer struct {
	srv        *mcp.Server
	subscribed atomic.Int64
	subs       chan string // each URI subscribed to, as it is
}

func newCatalogServer(name string, versions ...string) *catalogServer {
	cs := &catalogServer{subs: make(chan string, 16)}
	cs.srv = mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ServerOptions{
		SupportedProtocolVersions: versions,
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
		},
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			cs.subscribed.Add(1)
			select {
			case cs.subs <- req.Params.URI:
			default:
			}
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			ref := req.Params.Ref
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{ref.Type + " " + ref.Name + ref.URI + " " + req.Params.Argument.Value}}}, nil
		},
	})
	cs.srv.AddTool(tool("echo", "e"), echoHandler)
	cs.srv.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets.", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}}, greetHandler)
	cs.srv.AddResource(&mcp.Resource{URI: "mem://" + name + "/readme", Name: "readme", MIMEType: "text/plain"}, readHandler)
	cs.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mem://" + name + "/items/{id}", Name: "item"}, readHandler)
	return cs
}

func greetHandler(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	if req.Params.Arguments["who"] == "" {
		return nil, errors.New("greet whom?")
	}
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["who"]}}}}, nil
}

func readHandler(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if strings.HasSuffix(req.Params.URI, "/broken") {
		return nil, errors.New("disk on fire")
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "content of " + req.Params.URI}}}, nil
}

// readAs answers every read with the server's name.
func readAs(server string) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: server}}}, nil
	}
}

// After connect a session lists prompts, resources and templates: they
// are readable through the Supervisor, counted in status, and announced
// as one event per kind with everything added.
func TestCatalog_ListedAtConnectAndCounted(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	a := newCatalogServer("a")
	f := newFleet(t, map[string]func() *mcp.Server{"a": func() *mcp.Server { return a.srv }, "plain": toolServer(tool("echo", "e"))})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "a", "plain")}})
	rec.WaitState(ctx, 0, "plain", messages.StateReady)
	_, ev := rec.WaitFor(ctx, 0, "a's resource templates", func(e messages.Event) bool {
		_, ok := e.(*messages.ResourceTemplatesChanged)
		return ok
	})
	if got := ev.(*messages.ResourceTemplatesChanged).Added; !cmp.Equal(got, []string{"mem://a/items/{id}"}) {
		t.Fatalf("templates added %v", got)
	}
	for _, want := range []string{"prompts.changed", "resources.changed"} {
		if n := countEvents(rec, 0, want, "a"); n != 1 {
			t.Errorf("%d %s events for a, want 1", n, want)
		}
	}
	if n := countEvents(rec, 0, "prompts.changed", "plain"); n != 0 {
		t.Errorf("plain (no prompts capability) got %d prompts.changed events", n)
	}

	if got := sup.Prompts(); len(got) != 1 || got[0].Name != "greet" || got[0].Server != "a" || got[0].Arguments[0].Name != "who" || got[0].Hash == "" {
		t.Fatalf("prompts = %+v", got)
	}
	if got := sup.Resources(); len(got) != 1 || got[0].URI != "mem://a/readme" || got[0].MIMEType != "text/plain" {
		t.Fatalf("resources = %+v", got)
	}
	if got := sup.ResourceTemplates(); len(got) != 1 || got[0].URITemplate != "mem://a/items/{id}" {
		t.Fatalf("templates = %+v", got)
	}
	st := sup.Status()
	var row messages.ServerStatus
	for _, s := range st.Servers {
		if s.Name == "a" {
			row = s
		}
	}
	if row.Tools != 1 || row.Prompts != 1 || row.Resources != 1 || row.Templates != 1 {
		t.Fatalf("a's counts: tools %d prompts %d resources %d templates %d, want 1 each", row.Tools, row.Prompts, row.Resources, row.Templates)
	}
}

func countEvents(rec *actorstest.Recorder, from int, typ, server string) int {
	n := 0
	for _, e := range rec.Since(from) {
		if e.EventType() != typ {
			continue
		}
		switch e := e.(type) {
		case *messages.PromptsChanged:
			if e.Server == server {
				n++
			}
		case *messages.ResourcesChanged:
			if e.Server == server {
				n++
			}
		case *messages.ResourceTemplatesChanged:
			if e.Server == server {
				n++
			}
		}
	}
	return n
}

// list_changed of each kind is one event for that kind with the right
// difference, and none for the others. Each step makes one change, so the
// server sends one notification (the go-sdk coalesces within 10 ms, and a
// repeated notification re-lists to no difference, hence no event).
func TestCatalog_ListChangedIsOneEventPerKind(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	a := newCatalogServer("a")
	f := newFleet(t, map[string]func() *mcp.Server{"a": func() *mcp.Server { return a.srv }})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "a")}})
	rec.WaitFor(ctx, 0, "templates", func(e messages.Event) bool { _, ok := e.(*messages.ResourceTemplatesChanged); return ok })

	kinds := []string{"prompts.changed", "resources.changed", "resourceTemplates.changed"}
	for _, step := range []struct {
		name   string
		change func()
		kind   string
		diff   [][]string // added, removed, changed
		items  int
	}{
		{"prompt added", func() { a.srv.AddPrompt(&mcp.Prompt{Name: "review"}, greetHandler) }, "prompts.changed", [][]string{{"review"}, {}, {}}, 2},
		{"prompt changed", func() { a.srv.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets warmly."}, greetHandler) }, "prompts.changed", [][]string{{}, {}, {"greet"}}, 2},
		{"prompt removed", func() { a.srv.RemovePrompts("review") }, "prompts.changed", [][]string{{}, {"review"}, {}}, 1},
		{"resource added", func() { a.srv.AddResource(&mcp.Resource{URI: "mem://a/new", Name: "new"}, readHandler) }, "resources.changed", [][]string{{"mem://a/new"}, {}, {}}, 2},
		{"resource changed", func() { a.srv.AddResource(&mcp.Resource{URI: "mem://a/new", Name: "renamed"}, readHandler) }, "resources.changed", [][]string{{}, {}, {"mem://a/new"}}, 2},
		{"resource removed", func() { a.srv.RemoveResources("mem://a/readme") }, "resources.changed", [][]string{{}, {"mem://a/readme"}, {}}, 1},
		{"template removed", func() { a.srv.RemoveResourceTemplates("mem://a/items/{id}") }, "resourceTemplates.changed", [][]string{{}, {"mem://a/items/{id}"}, {}}, 0},
	} {
		// A kind re-listed the step before waits out the re-list
		// interval (1s) before the next.
		mClock.Advance(time.Second).MustWait(ctx)
		mark := rec.Len()
		step.change()
		_, ev := rec.WaitFor(ctx, mark, step.name, func(e messages.Event) bool { return e.EventType() == step.kind })
		var got [][]string
		var items int
		switch ev := ev.(type) {
		case *messages.PromptsChanged:
			got, items = [][]string{ev.Added, ev.Removed, ev.Changed}, len(ev.Prompts)
		case *messages.ResourcesChanged:
			got, items = [][]string{ev.Added, ev.Removed, ev.Changed}, len(ev.Resources)
		case *messages.ResourceTemplatesChanged:
			got, items = [][]string{ev.Added, ev.Removed, ev.Changed}, len(ev.Templates)
		}
		if diff := cmp.Diff(step.diff, got); diff != "" {
			t.Errorf("%s: diff (-want +got):\n%s", step.name, diff)
		}
		if items != step.items {
			t.Errorf("%s: the event carries %d items, want the full list of %d", step.name, items, step.items)
		}
		if _, _, err := sup.Resync(ctx, true); err != nil { // barrier: the fleet actor handled what it was sent
			t.Fatal(err)
		}
		for _, k := range kinds {
			want := 0
			if k == step.kind {
				want = 1
			}
			if n := countEvents(rec, mark, k, "a"); n != want {
				t.Errorf("%s: %d %s events, want %d\n%s", step.name, n, k, want, rec.Dump())
			}
		}
	}
	if got := sup.ResourceTemplates(); len(got) != 0 {
		t.Fatalf("templates after removal: %+v", got)
	}
	if got := sup.Prompts(); len(got) != 1 || got[0].Description != "Greets warmly." {
		t.Fatalf("prompts after the changes: %+v", got)
	}
}

// Gets, reads and completions are routed to the owning server and fail
// with the classified errors.
func TestCatalog_GetReadCompleteAreRoutedWithClassifiedErrors(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	a, b := newCatalogServer("a"), newCatalogServer("b")
	f := newFleet(t, map[string]func() *mcp.Server{"a": func() *mcp.Server { return a.srv }, "b": func() *mcp.Server { return b.srv }, "hung": nil})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "a", "b", "hung")}})
	rec.WaitState(ctx, 0, "a", messages.StateReady)
	rec.WaitState(ctx, 0, "b", messages.StateReady)

	got, err := sup.GetPrompt(ctx, actors.QualifiedName("b", "greet"), map[string]string{"who": "world"})
	if err != nil || got.Messages[0].Content.(*mcp.TextContent).Text != "hello world" {
		t.Fatalf("GetPrompt = %v, %v", got, err)
	}
	read, err := sup.ReadResource(ctx, "mem://b/readme")
	if err != nil || read.Contents[0].Text != "content of mem://b/readme" {
		t.Fatalf("ReadResource(listed) = %v, %v", read, err)
	}
	read, err = sup.ReadResource(ctx, "mem://a/items/42")
	if err != nil || read.Contents[0].Text != "content of mem://a/items/42" {
		t.Fatalf("ReadResource(template) = %v, %v", read, err)
	}
	// Only b's template matches: a would not know the URI.
	if read, err := sup.ReadResource(ctx, "mem://b/items/7"); err != nil || read.Contents[0].Text != "content of mem://b/items/7" {
		t.Fatalf("ReadResource(b's template) = %v, %v", read, err)
	}
	comp, err := sup.Complete(ctx, &mcp.CompleteReference{Type: "ref/prompt", Name: actors.QualifiedName("a", "greet")}, mcp.CompleteParamsArgument{Name: "who", Value: "wo"}, nil)
	if err != nil || comp.Completion.Values[0] != "ref/prompt greet wo" {
		t.Fatalf("Complete(prompt) = %+v, %v (the server must see its own prompt name)", comp, err)
	}
	comp, err = sup.Complete(ctx, &mcp.CompleteReference{Type: "ref/resource", URI: "mem://b/items/{id}"}, mcp.CompleteParamsArgument{Name: "id", Value: "4"}, nil)
	if err != nil || comp.Completion.Values[0] != "ref/resource mem://b/items/{id} 4" {
		t.Fatalf("Complete(resource) = %+v, %v", comp, err)
	}

	for _, tc := range []struct {
		name string
		err  error
		run  func() error
	}{
		{"unknown prompt", actors.ErrUnknownPrompt, func() error { _, err := sup.GetPrompt(ctx, "a__nope", nil); return err }},
		{"unknown server", actors.ErrUnknownServer, func() error { _, err := sup.GetPrompt(ctx, "zz__greet", nil); return err }},
		{"bad name", actors.ErrBadToolName, func() error { _, err := sup.GetPrompt(ctx, "greet", nil); return err }},
		{"upstream read", actors.ErrUpstream, func() error { _, err := sup.ReadResource(ctx, "mem://a/items/broken"); return err }},
		{"upstream get", actors.ErrUpstream, func() error { _, err := sup.GetPrompt(ctx, "a__greet", nil); return err }},
		{"bad reference", actors.ErrBadReference, func() error {
			_, err := sup.Complete(ctx, &mcp.CompleteReference{Type: "ref/tool", Name: "x"}, mcp.CompleteParamsArgument{}, nil)
			return err
		}},
		{"canceled", actors.ErrCanceled, func() error {
			c, cancel := context.WithCancel(ctx)
			cancel()
			_, err := sup.ReadResource(c, "mem://a/readme")
			return err
		}},
	} {
		if err := tc.run(); !errors.Is(err, tc.err) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.err)
		}
	}

	// While hung starts, a get of its prompt waits for it, and so does a
	// read of a URI nobody lists (hung might list it); its connect timeout
	// ends both: the get is not ready, naming hung and why; the read is
	// unknown.
	answers := whileStarting(t, ctx, mClock, func() { _, w := mClock.AdvanceNext(); w.MustWait(ctx) },
		func() error { _, err := sup.GetPrompt(ctx, "hung__greet", nil); return err },
		func() error { _, err := sup.ReadResource(ctx, "mem://nobody/x"); return err },
	)
	var start *actors.StartError
	if err := answers[0]; !errors.Is(err, actors.ErrNotReady) || !errors.As(err, &start) || start.Server != "hung" || !strings.Contains(start.Reason, "failed") {
		t.Errorf("get of a prompt of a server that failed to start: %v, want a StartError naming hung and its failure", err)
	}
	if err := answers[1]; !errors.Is(err, actors.ErrUnknownResource) {
		t.Errorf("read of a URI nobody lists once hung failed: %v, want ErrUnknownResource", err)
	}
}

// catalogPager is an in-memory server whose prompts/list or resources/list
// never ends (a fresh cursor on every page); it counts the pages asked.
func catalogPager(method string, asked *atomic.Int64) *mcp.Server {
	srv := newCatalogServer("hostile").srv
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
			if m != method {
				return next(ctx, m, req)
			}
			n := asked.Add(1)
			cursor := fmt.Sprintf("page-%d", n+1)
			switch method {
			case "prompts/list":
				return &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{{Name: fmt.Sprintf("p%d", n)}}, NextCursor: cursor}, nil
			default:
				return &mcp.ListResourcesResult{Resources: []*mcp.Resource{{URI: fmt.Sprintf("mem://x/%d", n), Name: "r"}}, NextCursor: cursor}, nil
			}
		}
	})
	return srv
}

// A server that pages its prompts or resources forever is cut at 100
// pages and failed with an error that says so (the page count proves the
// listing stopped, so memory stays bounded); its sibling keeps serving.
func TestCatalog_EndlessPromptsOrResourcesFailOnlyThatServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	var prompts, resources atomic.Int64
	ok := newCatalogServer("ok")
	f := newFleet(t, map[string]func() *mcp.Server{
		"prompts":   func() *mcp.Server { return catalogPager("prompts/list", &prompts) },
		"resources": func() *mcp.Server { return catalogPager("resources/list", &resources) },
		"ok":        func() *mcp.Server { return ok.srv },
	})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "prompts", "resources", "ok")}})
	for _, tc := range []struct {
		server string
		asked  *atomic.Int64
		error  string
	}{
		{"prompts", &prompts, "prompts/list: listing cut: the server still had more after 100 pages"},
		{"resources", &resources, "resources/list: listing cut: the server still had more after 100 pages"},
	} {
		_, failed := rec.WaitState(ctx, 0, tc.server, messages.StateFailed)
		if !strings.Contains(failed.Error, tc.error) {
			t.Errorf("%s failed with %q, want %q", tc.server, failed.Error, tc.error)
		}
		if got := tc.asked.Load(); got != 100 {
			t.Errorf("%s was asked for %d pages, want 100", tc.server, got)
		}
	}
	rec.WaitState(ctx, 0, "ok", messages.StateReady)
	if _, err := sup.ReadResource(ctx, "mem://ok/readme"); err != nil {
		t.Fatalf("the sibling's read: %v", err)
	}
}

// A prompt or resource too large to expose is skipped with an event; its
// siblings are kept.
func TestCatalog_OversizeItemIsSkippedSiblingsKept(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	a := newCatalogServer("a")
	a.srv.AddPrompt(&mcp.Prompt{Name: "huge", Description: strings.Repeat("x", 64<<10+1)}, greetHandler)
	a.srv.AddResource(&mcp.Resource{URI: "mem://a/huge", Name: "huge", Description: strings.Repeat("x", 64<<10+1)}, readHandler)
	f := newFleet(t, map[string]func() *mcp.Server{"a": func() *mcp.Server { return a.srv }})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "a")}})
	// The catalog's events follow the ready one, in one step.
	rec.WaitFor(ctx, 0, "templates", func(e messages.Event) bool { _, ok := e.(*messages.ResourceTemplatesChanged); return ok })
	var skipped []string
	for _, e := range rec.Since(0) {
		if s, ok := e.(*messages.CatalogItemSkipped); ok {
			skipped = append(skipped, string(s.Kind)+" "+s.Key)
			if !strings.Contains(s.Reason, "description of 65537 bytes") {
				t.Errorf("reason %q", s.Reason)
			}
		}
	}
	if diff := cmp.Diff([]string{"prompts huge", "resources mem://a/huge"}, skipped); diff != "" {
		t.Fatalf("skipped (-want +got):\n%s", diff)
	}
	if got := sup.Prompts(); len(got) != 1 || got[0].Name != "greet" {
		t.Fatalf("prompts = %+v, want the sibling kept", got)
	}
	if got := sup.Resources(); len(got) != 1 || got[0].URI != "mem://a/readme" {
		t.Fatalf("resources = %+v, want the sibling kept", got)
	}
}

// Two servers claiming one URI: the first in config order owns it, the
// conflict is an event and a warning on the other's row.
func TestCatalog_URIConflictFirstInConfigOrderWins(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	first, second := newCatalogServer("first"), newCatalogServer("second")
	first.srv.AddResource(&mcp.Resource{URI: "mem://shared", Name: "from first"}, readAs("zfirst"))
	second.srv.AddResource(&mcp.Resource{URI: "mem://shared", Name: "from second"}, readAs("asecond"))
	f := newFleet(t, map[string]func() *mcp.Server{"zfirst": func() *mcp.Server { return first.srv }, "asecond": func() *mcp.Server { return second.srv }})
	path := configFor(t) // written in this order: zfirst before asecond
	writeOrdered(t, path, "zfirst", "asecond")
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{path}})
	_, ev := rec.WaitFor(ctx, 0, "conflict", func(e messages.Event) bool { _, ok := e.(*messages.CatalogConflict); return ok })
	if c := ev.(*messages.CatalogConflict); c.Winner != "zfirst" || c.Loser != "asecond" || c.Key != "mem://shared" || c.Kind != messages.KindResources {
		t.Fatalf("conflict %+v", c)
	}
	if read, err := sup.ReadResource(ctx, "mem://shared"); err != nil || read.Contents[0].Text != "zfirst" {
		t.Fatalf("reading mem://shared = %v, %v: want zfirst's answer", read, err)
	}
	n := 0
	for _, r := range sup.Resources() {
		if r.URI == "mem://shared" {
			n++
			if r.Server != "zfirst" {
				t.Fatalf("mem://shared listed from %s", r.Server)
			}
		}
	}
	if n != 1 {
		t.Fatalf("mem://shared listed %d times", n)
	}
	for _, s := range sup.Status().Servers {
		if s.Name == "asecond" && !strings.Contains(s.Warning, "mem://shared is zfirst's") {
			t.Fatalf("asecond's warning %q", s.Warning)
		}
	}

	// A subscription goes to the owner; when the owner drops the URI, the
	// other server owns it and holds the subscription, though its own
	// catalog did not change.
	if err := sup.SubscribeResource(ctx, "mem://shared"); err != nil {
		t.Fatal(err)
	}
	if got := <-first.subs; got != "mem://shared" {
		t.Fatalf("zfirst subscribed to %q", got)
	}
	first.srv.RemoveResources("mem://shared")
	select {
	case got := <-second.subs:
		if got != "mem://shared" {
			t.Fatalf("asecond subscribed to %q", got)
		}
	case <-ctx.Done():
		t.Fatal("the new owner never took the subscription over")
	}
	if n := second.subscribed.Load(); n != 1 {
		t.Fatalf("asecond was asked %d times, want once", n)
	}
}

// writeOrdered writes a config whose entries appear in the given order.
func writeOrdered(t *testing.T, path string, names ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"mcpServers": {`)
	for i, n := range names {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "%q: {\"command\": \"in-memory\"}", n)
	}
	b.WriteString("}}")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Subscriptions are counted per URI and held upstream once; updates
// arrive as events; when the server restarts, the new session subscribes
// again and updates keep coming; after the last unsubscribe they stop.
// Both on 2026-07-28 (a listen stream per URI, answered by an
// acknowledgement) and on 2025-11-25 (resources/subscribe).
func TestCatalog_SubscriptionsAreCountedAndSurviveARestart(t *testing.T) {
	t.Parallel()
	for _, versions := range [][]string{nil, {"2025-11-25"}} {
		t.Run(fmt.Sprint(versions), func(t *testing.T) {
			t.Parallel()
			testSubscriptions(t, versions)
		})
	}
}

func testSubscriptions(t *testing.T, versions []string) {
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	a := newCatalogServer("a", versions...)
	f := newFleet(t, map[string]func() *mcp.Server{"a": func() *mcp.Server { return a.srv }})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "a")}})
	rec.WaitFor(ctx, 0, "templates", func(e messages.Event) bool { _, ok := e.(*messages.ResourceTemplatesChanged); return ok })
	const uri = "mem://a/readme"
	updated := func(from int, uri string) int {
		t.Helper()
		if err := a.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		i, _ := rec.WaitFor(ctx, from, "update of "+uri, func(e messages.Event) bool {
			u, ok := e.(*messages.ResourceUpdated)
			return ok && u.URI == uri && u.Server == "a"
		})
		return i
	}

	for range 2 {
		if err := sup.SubscribeResource(ctx, uri); err != nil {
			t.Fatal(err)
		}
	}
	if n := a.subscribed.Load(); n != 1 {
		t.Fatalf("two subscriptions asked upstream %d times, want once", n)
	}
	<-a.subs
	updated(rec.Len(), uri)

	mark := rec.Len()
	f.kill("a")
	rec.WaitState(ctx, mark, "a", messages.StateFailed)
	if _, _, err := sup.Resync(ctx, false); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-a.subs:
		if got != uri {
			t.Fatalf("renewed %q", got)
		}
	case <-ctx.Done():
		t.Fatal("the new session never subscribed again")
	}
	// A third subscription waits for the renewal's answer, and asks
	// nothing more upstream.
	if err := sup.SubscribeResource(ctx, uri); err != nil {
		t.Fatal(err)
	}
	if n := a.subscribed.Load(); n != 2 {
		t.Fatalf("asked upstream %d times in all, want twice (once per session)", n)
	}
	updated(rec.Len(), uri)

	// Unsubscribes keep it while any of the three is left.
	sup.UnsubscribeResource(uri)
	sup.UnsubscribeResource(uri)
	updated(rec.Len(), uri)
	sup.UnsubscribeResource(uri)
	mark = rec.Len()
	if err := a.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if err := sup.SubscribeResource(ctx, "mem://a/items/1"); err != nil { // a template instance
		t.Fatal(err)
	}
	end := updated(mark, "mem://a/items/1")
	for _, e := range rec.Since(mark)[:end-mark] {
		if u, ok := e.(*messages.ResourceUpdated); ok && u.URI == uri {
			t.Fatalf("an update of %s after its last unsubscribe", uri)
		}
	}

	if err := sup.SubscribeResource(ctx, "mem://nobody/x"); !errors.Is(err, actors.ErrUnknownResource) {
		t.Fatalf("subscribing to an unrouted URI: %v, want ErrUnknownResource", err)
	}
}

// A re-list after prompts or resources list_changed is bounded the same
// way: a server that starts paging without end is failed, not followed.
func TestCatalog_EndlessRelistFailsTheServer(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"prompts/list", "resources/list"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
			a := newCatalogServer("a")
			var endless atomic.Bool
			var asked atomic.Int64
			a.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
					if m != method || !endless.Load() {
						return next(ctx, m, req)
					}
					n := asked.Add(1)
					if method == "prompts/list" {
						return &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{{Name: fmt.Sprintf("p%d", n)}}, NextCursor: fmt.Sprint(n)}, nil
					}
					return &mcp.ListResourcesResult{Resources: []*mcp.Resource{{URI: fmt.Sprintf("mem://x/%d", n), Name: "r"}}, NextCursor: fmt.Sprint(n)}, nil
				}
			})
			f := newFleet(t, map[string]func() *mcp.Server{"a": func() *mcp.Server { return a.srv }})
			_, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "a")}})
			rec.WaitFor(ctx, 0, "templates", func(e messages.Event) bool { _, ok := e.(*messages.ResourceTemplatesChanged); return ok })

			mark := rec.Len()
			endless.Store(true)
			if method == "prompts/list" {
				a.srv.AddPrompt(&mcp.Prompt{Name: "more"}, greetHandler) // list_changed
			} else {
				a.srv.AddResource(&mcp.Resource{URI: "mem://a/more", Name: "more"}, readHandler)
			}
			_, failed := rec.WaitState(ctx, mark, "a", messages.StateFailed)
			if want := method + ": listing cut: the server still had more after 100 pages"; !strings.Contains(failed.Error, want) {
				t.Fatalf("failed with %q, want %q", failed.Error, want)
			}
			if got := asked.Load(); got != 100 {
				t.Fatalf("asked for %d pages, want 100", got)
			}
		})
	}
}
