package gateway_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
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

func testContext(t *testing.T) context.Context { return actorstest.ContextTimeout(t, 30*time.Second) }

// fakeSource is a fleet: its tools are what Run loads first, and call
// answers CallTool.
type fakeSource struct {
	mu    sync.Mutex
	tools []messages.Tool
	call  func(ctx context.Context, name string, args any) (*mcp.CallToolResult, error)
}

func (s *fakeSource) Tools() []messages.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]messages.Tool{}, s.tools...)
}

func (s *fakeSource) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	call := s.call
	s.mu.Unlock()
	if call == nil {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called " + name}}}, nil
	}
	return call(ctx, name, args)
}

// tool is an upstream tool the way the fleet reports it: schemas decoded
// from JSON.
func tool(server, name, desc string) messages.Tool {
	return messages.Tool{
		Server:      server,
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
	seq    uint64
}

func startGateway(t *testing.T, src *fakeSource) *harness {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	h := &harness{t: t, src: src, events: make(chan *messages.Envelope, 64), logs: logs}
	h.gw = gateway.New(src, zap.New(core))
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

// toolsChanged sends the whole new tool set of one server, as the
// reconciler does.
func (h *harness) toolsChanged(server string, tools ...messages.Tool) {
	h.seq++
	h.events <- &messages.Envelope{Seq: h.seq, Time: time.Now(), Event: &messages.ToolsChanged{Server: server, Tools: tools}}
}

// client is a go-sdk client session that signals every list_changed.
type client struct {
	t       *testing.T
	cs      *mcp.ClientSession
	changed chan struct{}
}

func newClient(t *testing.T) (*mcp.Client, chan struct{}) {
	changed := make(chan struct{}, 64)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	return c, changed
}

// connectInMemory connects a client to the gateway's server in memory.
func (h *harness) connectInMemory(ctx context.Context, pin string) *client {
	h.t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := h.gw.Server().Connect(ctx, st, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	c, changed := newClient(h.t)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return &client{t: h.t, cs: cs, changed: changed}
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
