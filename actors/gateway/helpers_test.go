package gateway_test

import (
	"context"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/messages"
)

// The protocols a client may speak: the go-sdk's default (2026-07-28,
// notifications on a subscriptions/listen stream) and the legacy one
// (notifications on the session).
var protocols = []struct{ name, pin, want string }{
	{"default", "", "2026-07-28"},
	{"2025-11-25", "2025-11-25", "2025-11-25"},
}

// fakeSource is a fleet: its catalog is what Run loads first; call, get,
// read and complete answer the requests (with a default answer when nil);
// subscribes and unsubscribes record the subscription calls.
type fakeSource struct {
	mu        sync.Mutex
	tools     []messages.Tool
	prompts   []messages.Prompt
	resources []messages.Resource
	templates []messages.ResourceTemplate
	status    messages.Status
	call      func(ctx context.Context, name string, args any) (*mcp.CallToolResult, error)
	get       func(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error)
	read      func(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
	complete  func(ctx context.Context, ref *mcp.CompleteReference, arg mcp.CompleteParamsArgument, cctx *mcp.CompleteContext) (*mcp.CompleteResult, error)
	subErr    error
	// subscribes and unsubscribes receive every URI subscribed and
	// unsubscribed (buffered; tests drain them).
	subscribes, unsubscribes chan string
}

func newFakeSource() *fakeSource {
	return &fakeSource{subscribes: make(chan string, 64), unsubscribes: make(chan string, 64)}
}

var _ gateway.Source = (*fakeSource)(nil)

func (s *fakeSource) Tools() []messages.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]messages.Tool{}, s.tools...)
}

func (s *fakeSource) Prompts() []messages.Prompt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]messages.Prompt{}, s.prompts...)
}

func (s *fakeSource) Resources() []messages.Resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]messages.Resource{}, s.resources...)
}

func (s *fakeSource) ResourceTemplates() []messages.ResourceTemplate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]messages.ResourceTemplate{}, s.templates...)
}

// Status is the fake fleet's status: its config applied (generation 1)
// unless a test set a generation.
func (s *fakeSource) Status() messages.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	if st.Generation == 0 {
		st.Generation, st.ObservedGeneration = 1, 1
	}
	return st
}

func (s *fakeSource) CallTool(ctx context.Context, name string, args any, _ ...actors.CallOption) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	call := s.call
	s.mu.Unlock()
	if call == nil {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called " + name}}}, nil
	}
	return call(ctx, name, args)
}

func (s *fakeSource) GetPrompt(ctx context.Context, name string, args map[string]string, _ ...actors.CallOption) (*mcp.GetPromptResult, error) {
	s.mu.Lock()
	get := s.get
	s.mu.Unlock()
	if get == nil {
		text := "got " + name
		for _, k := range slices.Sorted(maps.Keys(args)) {
			text += " " + k + "=" + args[k]
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
	}
	return get(ctx, name, args)
}

func (s *fakeSource) ReadResource(ctx context.Context, uri string, _ ...actors.CallOption) (*mcp.ReadResourceResult, error) {
	s.mu.Lock()
	read := s.read
	s.mu.Unlock()
	if read == nil {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "read " + uri}}}, nil
	}
	return read(ctx, uri)
}

func (s *fakeSource) Complete(ctx context.Context, ref *mcp.CompleteReference, arg mcp.CompleteParamsArgument, cctx *mcp.CompleteContext) (*mcp.CompleteResult, error) {
	s.mu.Lock()
	complete := s.complete
	s.mu.Unlock()
	if complete == nil {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{ref.Type + " " + ref.Name + ref.URI + " " + arg.Name + "=" + arg.Value}}}, nil
	}
	return complete(ctx, ref, arg, cctx)
}

func (s *fakeSource) SubscribeResource(ctx context.Context, uri string) error {
	s.mu.Lock()
	err := s.subErr
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.subscribes <- uri
	return nil
}

func (s *fakeSource) UnsubscribeResource(uri string) { s.unsubscribes <- uri }

// declare sets where servers are declared: one file, one line each, in
// the order given.
func (s *fakeSource) declare(path string, servers ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, name := range servers {
		s.status.Servers = append(s.status.Servers, messages.ServerStatus{Name: name, Source: messages.Position{Path: path, Line: i + 2, Column: 5}})
	}
}

// tool is an upstream tool the way the fleet reports it: schemas decoded
// from JSON.
func tool(server, name, desc string) messages.Tool {
	return messages.Tool{
		Server:      server,
		Prefix:      server,
		Name:        name,
		Description: desc,
		InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"message": map[string]any{"type": "string"}},
		},
	}
}

// harness runs a Gateway over a fakeSource, fed by a test-owned events
// channel, with logs in an observer.
type harness struct {
	t      *testing.T
	src    *fakeSource
	gw     *gateway.Gateway
	events chan *messages.Envelope
	logs   *observer.ObservedLogs
	// logged is signalled (buffered, 1) after every log entry, for tests
	// that wait for one.
	logged chan struct{}
	seq    uint64
}

func startGateway(t *testing.T, src *fakeSource, opts ...gateway.Option) *harness {
	t.Helper()
	return startGatewayOver(t, src, nil, opts...)
}

// startGatewayOver is startGateway over any Source; setup, if set, runs
// before Run.
func startGatewayOver(t *testing.T, src gateway.Source, setup func(*harness), opts ...gateway.Option) *harness {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	h := &harness{t: t, events: make(chan *messages.Envelope, 64), logs: logs, logged: make(chan struct{}, 1)}
	if fs, ok := src.(*fakeSource); ok {
		if fs.subscribes == nil {
			fs.subscribes, fs.unsubscribes = make(chan string, 64), make(chan string, 64)
		}
		h.src = fs
	}
	h.gw = gateway.New(src, zap.New(core, zap.Hooks(func(zapcore.Entry) error {
		select {
		case h.logged <- struct{}{}:
		default:
		}
		return nil
	})), opts...)
	if setup != nil {
		setup(h)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.gw.Run(ctx, h.events)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			for _, e := range logs.All() {
				t.Logf("log: %s %s %v", e.Level, e.Message, e.ContextMap())
			}
		}
	})
	return h
}

// send publishes one event to the gateway, as the journal does.
func (h *harness) send(ev messages.Event) {
	h.seq++
	h.events <- &messages.Envelope{Seq: h.seq, Time: time.Now(), Event: ev}
}

// toolsChanged sends the whole new tool set of one server, as the
// fleet actor does; the others likewise for their kinds.
func (h *harness) toolsChanged(server string, tools ...messages.Tool) {
	h.send(&messages.ToolsChanged{Server: server, Tools: tools})
}

func (h *harness) promptsChanged(server string, prompts ...messages.Prompt) {
	h.send(&messages.PromptsChanged{Server: server, Prompts: prompts})
}

func (h *harness) resourcesChanged(server string, resources ...messages.Resource) {
	h.send(&messages.ResourcesChanged{Server: server, Resources: resources})
}

func (h *harness) templatesChanged(server string, templates ...messages.ResourceTemplate) {
	h.send(&messages.ResourceTemplatesChanged{Server: server, Templates: templates})
}

// client is a go-sdk client session that signals every list_changed of
// each kind, every resources/updated (by URI) and every subscriptions
// acknowledgement (2026-07-28).
type client struct {
	t                *testing.T
	cs               *mcp.ClientSession
	changed          chan struct{}
	promptsChanged   chan struct{}
	resourcesChanged chan struct{}
	updated, acked   chan string
	// listening is closed when a 2026-07-28 client's subscriptions/listen
	// stream for list changes is acknowledged.
	listening chan struct{}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func newClient(t *testing.T) (*mcp.Client, *client) {
	c := &client{t: t, changed: make(chan struct{}, 64), promptsChanged: make(chan struct{}, 64),
		resourcesChanged: make(chan struct{}, 64), updated: make(chan string, 64), acked: make(chan string, 64),
		listening: make(chan struct{})}
	var once sync.Once
	mc := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { signal(c.changed) },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { signal(c.promptsChanged) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { signal(c.resourcesChanged) },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			c.updated <- req.Params.URI
		},
	})
	// A 2026-07-28 Connect and Subscribe return before the server has
	// the subscriptions/listen stream; its acknowledgement says when it
	// does.
	mc.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				if p, ok := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams); ok {
					if p.Notifications.ToolsListChanged {
						once.Do(func() { close(c.listening) })
					}
					for _, uri := range p.Notifications.ResourceSubscriptions {
						c.acked <- uri
					}
				}
			}
			return next(ctx, method, req)
		}
	})
	return mc, c
}

// connectInMemory connects a client to the gateway's server in memory.
func (h *harness) connectInMemory(ctx context.Context, pin string) *client {
	h.t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := h.gw.Server().Connect(ctx, st, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	mc, c := newClient(h.t)
	cs, err := mc.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	c.cs = cs
	c.awaitListening(ctx)
	return c
}

// awaitListening waits, on 2026-07-28, until the gateway has the client's
// notification stream: before that, a change would notify nobody.
func (c *client) awaitListening(ctx context.Context) {
	c.t.Helper()
	if c.cs.InitializeResult().ProtocolVersion < "2026-07-28" {
		return
	}
	select {
	case <-c.listening:
	case <-ctx.Done():
		c.t.Fatal("the client's subscriptions/listen stream was never acknowledged")
	}
}

// names lists the gateway's tools by name.
func (c *client) names(ctx context.Context) []string {
	c.t.Helper()
	res, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		c.t.Fatalf("list tools: %v", err)
	}
	out := []string{}
	for _, t := range res.Tools {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

// expectChange waits for a list_changed, then for the tool list to be
// want (a slow machine may split one change into two notifications).
func (c *client) expectChange(ctx context.Context, want ...string) {
	c.t.Helper()
	select {
	case <-c.changed:
	case <-ctx.Done():
		c.t.Fatalf("no tools/list_changed (want tools %v): %v", want, ctx.Err())
	}
	c.waitTools(ctx, want...)
}

// waitTools waits, notification by notification, until the tool list is
// want.
func (c *client) waitTools(ctx context.Context, want ...string) {
	c.t.Helper()
	if want == nil {
		want = []string{}
	}
	for {
		got := c.names(ctx)
		if cmp.Equal(want, got) {
			return
		}
		select {
		case <-c.changed:
		case <-ctx.Done():
			c.t.Fatalf("tools never became as wanted (-want +got):\n%s", cmp.Diff(want, got))
		}
	}
}

// text is the text of a result's only content.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d contents, want 1: %+v", len(res.Content), res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}
