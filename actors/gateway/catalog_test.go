package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/messages"
)

func prompt(server, name, desc string, args ...string) messages.Prompt {
	p := messages.Prompt{Server: server, Prefix: server, Name: name, Description: desc}
	for _, a := range args {
		p.Arguments = append(p.Arguments, messages.PromptArgument{Name: a, Required: true})
	}
	return p
}

func resource(server, uri, desc string) messages.Resource {
	return messages.Resource{Server: server, URI: uri, Name: uri, Description: desc, MIMEType: "text/plain"}
}

func template(server, uriTemplate string) messages.ResourceTemplate {
	return messages.ResourceTemplate{Server: server, URITemplate: uriTemplate, Name: uriTemplate}
}

// promptNames lists the gateway's prompts by name.
func (c *client) promptNames(ctx context.Context) []string {
	c.t.Helper()
	res, err := c.cs.ListPrompts(ctx, nil)
	if err != nil {
		c.t.Fatalf("list prompts: %v", err)
	}
	out := []string{}
	for _, p := range res.Prompts {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// resourceURIs lists the gateway's resources, then its templates.
func (c *client) resourceURIs(ctx context.Context) []string {
	c.t.Helper()
	res, err := c.cs.ListResources(ctx, nil)
	if err != nil {
		c.t.Fatalf("list resources: %v", err)
	}
	out := []string{}
	for _, r := range res.Resources {
		out = append(out, r.URI)
	}
	slices.Sort(out)
	tpl, err := c.cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		c.t.Fatalf("list resource templates: %v", err)
	}
	var tpls []string
	for _, t := range tpl.ResourceTemplates {
		tpls = append(tpls, "template "+t.URITemplate)
	}
	slices.Sort(tpls)
	return append(out, tpls...)
}

// waitList waits, notification by notification on changed, until list
// returns want.
func waitList(t *testing.T, ctx context.Context, changed chan struct{}, list func(context.Context) []string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	for {
		got := list(ctx)
		if cmp.Equal(want, got) {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("list never became as wanted (-want +got):\n%s", cmp.Diff(want, got))
		}
	}
}

// expectSignal waits for one list_changed on ch.
func expectSignal(t *testing.T, ctx context.Context, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-ctx.Done():
		t.Fatalf("no %s", what)
	}
}

func promptText(t *testing.T, res *mcp.GetPromptResult) string {
	t.Helper()
	if len(res.Messages) != 1 {
		t.Fatalf("%d messages, want 1: %+v", len(res.Messages), res)
	}
	tc, ok := res.Messages[0].Content.(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Messages[0].Content)
	}
	return tc.Text
}

// Prompts are exposed as prefix__prompt with their arguments, gets are
// routed to the owning server with the client's arguments, and every
// change, removals included, is a prompts/list_changed, on both protocols.
func TestGateway_PromptsListedAndGot(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			src := newFakeSource()
			src.prompts = []messages.Prompt{prompt("alpha", "greet", "Greets.", "name")}
			h := startGateway(t, src)
			c := h.connectInMemory(ctx, p.pin)
			caps := c.cs.InitializeResult().Capabilities
			if caps.Prompts == nil || !caps.Prompts.ListChanged {
				t.Fatalf("capabilities %+v: prompts.listChanged not advertised", caps)
			}
			waitList(t, ctx, c.promptsChanged, c.promptNames, "alpha__greet")

			res, err := c.cs.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := []*mcp.PromptArgument{{Name: "name", Required: true}}
			if diff := cmp.Diff(want, res.Prompts[0].Arguments); diff != "" || res.Prompts[0].Description != "Greets." {
				t.Errorf("prompt %+v: arguments (-want +got):\n%s", res.Prompts[0], diff)
			}
			got, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "alpha__greet", Arguments: map[string]string{"name": "Ada"}})
			if err != nil {
				t.Fatal(err)
			}
			if text := promptText(t, got); text != "got alpha__greet name=Ada" {
				t.Errorf("prompt text %q, want the Source's answer for alpha__greet with name=Ada", text)
			}

			h.promptsChanged("beta", prompt("beta", "greet", "Greets too."))
			expectSignal(t, ctx, c.promptsChanged, "prompts/list_changed after beta's prompt arrived")
			waitList(t, ctx, c.promptsChanged, c.promptNames, "alpha__greet", "beta__greet")

			h.promptsChanged("alpha") // alpha stopped: a removal
			expectSignal(t, ctx, c.promptsChanged, "prompts/list_changed after alpha's prompt was removed")
			waitList(t, ctx, c.promptsChanged, c.promptNames, "beta__greet")
			if diff := cmp.Diff([]string{"beta__greet"}, h.gw.ExposedPrompts()); diff != "" {
				t.Errorf("ExposedPrompts (-want +got):\n%s", diff)
			}
			_, err = c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "alpha__greet"})
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("get of a withdrawn prompt: %v, want -32602", err)
			}
		})
	}
}

// Resources keep their URIs and templates are listed; a read, of a listed
// URI or of one a template matches, goes to the Source by URI; removals of
// either are a resources/list_changed.
func TestGateway_ResourcesAndTemplatesListedAndRead(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			src := newFakeSource()
			src.resources = []messages.Resource{resource("alpha", "test://alpha/readme", "Readme.")}
			h := startGateway(t, src)
			c := h.connectInMemory(ctx, p.pin)
			caps := c.cs.InitializeResult().Capabilities
			if caps.Resources == nil || !caps.Resources.ListChanged || !caps.Resources.Subscribe {
				t.Fatalf("capabilities %+v: resources listChanged and subscribe not advertised", caps.Resources)
			}
			waitList(t, ctx, c.resourcesChanged, c.resourceURIs, "test://alpha/readme")

			h.templatesChanged("beta", template("beta", "test://beta/items/{id}"))
			expectSignal(t, ctx, c.resourcesChanged, "resources/list_changed after a template arrived")
			waitList(t, ctx, c.resourcesChanged, c.resourceURIs, "test://alpha/readme", "template test://beta/items/{id}")

			for _, uri := range []string{"test://alpha/readme", "test://beta/items/42"} {
				res, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				if err != nil {
					t.Fatalf("read %s: %v", uri, err)
				}
				if len(res.Contents) != 1 || res.Contents[0].Text != "read "+uri {
					t.Errorf("read %s = %+v, want the Source's contents for it", uri, res.Contents)
				}
			}
			if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://nobody/x"}); err == nil {
				t.Error("read of a URI nobody exposes succeeded")
			}

			h.templatesChanged("beta")
			expectSignal(t, ctx, c.resourcesChanged, "resources/list_changed after a template was removed")
			waitList(t, ctx, c.resourcesChanged, c.resourceURIs, "test://alpha/readme")
			h.resourcesChanged("alpha")
			expectSignal(t, ctx, c.resourcesChanged, "resources/list_changed after a resource was removed")
			waitList(t, ctx, c.resourcesChanged, c.resourceURIs)
		})
	}
}

// subscribe subscribes c to uri and waits until the gateway has it (a
// 2026-07-28 Subscribe returns before the server acknowledges it).
func (c *client) subscribe(ctx context.Context, uri string) {
	c.t.Helper()
	if err := c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		c.t.Fatalf("subscribe %s: %v", uri, err)
	}
	if c.cs.InitializeResult().ProtocolVersion < "2026-07-28" {
		return
	}
	select {
	case got := <-c.acked:
		if got != uri {
			c.t.Fatalf("acknowledged %s, want %s", got, uri)
		}
	case <-ctx.Done():
		c.t.Fatalf("subscription to %s never acknowledged", uri)
	}
}

func (c *client) expectUpdated(ctx context.Context, uri string) {
	c.t.Helper()
	select {
	case got := <-c.updated:
		if got != uri {
			c.t.Fatalf("resources/updated for %s, want %s", got, uri)
		}
	case <-ctx.Done():
		c.t.Fatalf("no resources/updated for %s", uri)
	}
}

func expectURI(t *testing.T, ctx context.Context, ch chan string, uri, what string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != uri {
			t.Fatalf("%s %s, want %s", what, got, uri)
		}
	case <-ctx.Done():
		t.Fatalf("no %s of %s", what, uri)
	}
}

// Two clients subscribed to one URI subscribe the Source once; each
// update reaches both; the subscription outlives the owning server's
// restart (its resources withdrawn and listed again); the Source is
// unsubscribed once, after the last client.
func TestGateway_SubscriptionFanOutSurvivesRestart(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			const uri = "test://alpha/counter"
			src := newFakeSource()
			src.resources = []messages.Resource{resource("alpha", uri, "Counter.")}
			h := startGateway(t, src)
			c1 := h.connectInMemory(ctx, p.pin)
			c2 := h.connectInMemory(ctx, p.pin)
			waitList(t, ctx, c1.resourcesChanged, c1.resourceURIs, uri)

			c1.subscribe(ctx, uri)
			expectURI(t, ctx, src.subscribes, uri, "upstream subscribe")
			c2.subscribe(ctx, uri)

			h.send(&messages.ResourceUpdated{Server: "alpha", URI: uri})
			c1.expectUpdated(ctx, uri)
			c2.expectUpdated(ctx, uri)

			// alpha restarts: its resources go, then come back.
			h.resourcesChanged("alpha")
			expectSignal(t, ctx, c1.resourcesChanged, "resources/list_changed when alpha stopped")
			h.resourcesChanged("alpha", resource("alpha", uri, "Counter."))
			waitList(t, ctx, c1.resourcesChanged, c1.resourceURIs, uri)
			h.send(&messages.ResourceUpdated{Server: "alpha", URI: uri})
			c1.expectUpdated(ctx, uri)
			c2.expectUpdated(ctx, uri)

			if err := c1.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			if err := c2.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			expectURI(t, ctx, src.unsubscribes, uri, "upstream unsubscribe")
			// Barrier: a new subscription is one more upstream subscribe,
			// so the first was never repeated and nothing else happened.
			c1.subscribe(ctx, "test://alpha/other")
			expectURI(t, ctx, src.subscribes, "test://alpha/other", "upstream subscribe")
			if n := len(src.subscribes) + len(src.unsubscribes); n != 0 {
				t.Errorf("%d more upstream (un)subscribes, want none", n)
			}
		})
	}
}

// A client that goes away without unsubscribing (a legacy session closed)
// releases its upstream subscription too, at the latest on the URI's next
// update; an update reaches nobody then.
func TestGateway_SubscriptionOfEndedSessionReleased(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	const uri = "test://alpha/counter"
	src := newFakeSource()
	h := startGateway(t, src)
	c := h.connectInMemory(ctx, "2025-11-25")
	c.subscribe(ctx, uri)
	expectURI(t, ctx, src.subscribes, uri, "upstream subscribe")
	if err := c.cs.Close(); err != nil {
		t.Fatal(err)
	}
	// The gateway's session ends with the client's: wait for it.
	for ss := range h.gw.Server().Sessions() {
		_ = ss.Wait()
	}
	h.send(&messages.ResourceUpdated{Server: "alpha", URI: uri})
	expectURI(t, ctx, src.unsubscribes, uri, "upstream unsubscribe")
}

// A subscription the Source refuses is the client's error, and nothing
// is counted.
func TestGateway_SubscribeErrorReachesClient(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	src := newFakeSource()
	src.subErr = fmt.Errorf("%w: %q", actors.ErrNotReady, "alpha")
	h := startGateway(t, src)
	c := h.connectInMemory(ctx, "2025-11-25")
	err := c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://alpha/x"})
	if err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Fatalf("subscribe = %v, want a not-ready error", err)
	}
}

// completion/complete is routed by its ref: a ref/prompt by the exposed
// prompt's owner, under its qualified name; a ref/resource keeps its URI
// template. An unknown prompt is -32602.
func TestGateway_CompletionRoutedByRef(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			src := newFakeSource()
			src.prompts = []messages.Prompt{prompt("alpha", "greet", "Greets.", "name"), prompt("beta", "greet", "Greets.", "name")}
			src.templates = []messages.ResourceTemplate{template("beta", "test://beta/items/{id}")}
			h := startGateway(t, src)
			c := h.connectInMemory(ctx, p.pin)
			if caps := c.cs.InitializeResult().Capabilities; caps.Completions == nil {
				t.Fatalf("capabilities %+v: completions not advertised", caps)
			}
			waitList(t, ctx, c.promptsChanged, c.promptNames, "alpha__greet", "beta__greet")
			tests := []struct {
				ref  *mcp.CompleteReference
				want string
			}{
				{&mcp.CompleteReference{Type: "ref/prompt", Name: "beta__greet"}, "ref/prompt beta__greet name=A"},
				{&mcp.CompleteReference{Type: "ref/resource", URI: "test://beta/items/{id}"}, "ref/resource test://beta/items/{id} name=A"},
			}
			for _, tt := range tests {
				res, err := c.cs.Complete(ctx, &mcp.CompleteParams{Ref: tt.ref, Argument: mcp.CompleteParamsArgument{Name: "name", Value: "A"}})
				if err != nil {
					t.Fatalf("complete %+v: %v", tt.ref, err)
				}
				if diff := cmp.Diff([]string{tt.want}, res.Completion.Values); diff != "" {
					t.Errorf("complete %+v (-want +got):\n%s", tt.ref, diff)
				}
			}
			_, err := c.cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "gamma__greet"}, Argument: mcp.CompleteParamsArgument{Name: "name"}})
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("complete of an unknown prompt: %v, want -32602", err)
			}
		})
	}
}

// With bare names, tools and prompts are exposed as their servers name
// them. Two servers offering one name: the first in config order is
// exposed and gets the calls, the conflict is logged and listed; when the
// winner withdraws its tool, the other's takes over.
func TestGateway_BareNamesConflictsResolvedByConfigOrder(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			src := newFakeSource()
			src.declare("/cfg/.mcp.json", "zeta", "alpha") // zeta first, though it sorts last
			h := startGateway(t, src, gateway.WithNames(gateway.NamesBare))
			c := h.connectInMemory(ctx, p.pin)

			h.toolsChanged("alpha", tool("alpha", "echo", "Alpha echoes."), tool("alpha", "add", "Adds."))
			h.toolsChanged("zeta", tool("zeta", "echo", "Zeta echoes."))
			h.promptsChanged("alpha", prompt("alpha", "greet", "Alpha greets."))
			h.promptsChanged("zeta", prompt("zeta", "greet", "Zeta greets."))
			c.waitTools(ctx, "add", "echo")
			waitList(t, ctx, c.promptsChanged, c.promptNames, "greet")
			for descriptionOf(t, ctx, c, "echo") != "Zeta echoes." {
				expectSignal(t, ctx, c.changed, "tools/list_changed to zeta's echo")
			}
			res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
			if err != nil || text(t, res) != "called zeta__echo" {
				t.Fatalf("call echo = %+v, %v: want it routed to zeta__echo", res, err)
			}
			got, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
			if err != nil || promptText(t, got) != "got zeta__greet" {
				t.Fatalf("get greet = %+v, %v: want it routed to zeta__greet", got, err)
			}
			want := []gateway.Conflict{
				{Kind: messages.KindPrompts, Key: "greet", Winner: "zeta", Loser: "alpha"},
				{Kind: messages.KindTools, Key: "echo", Winner: "zeta", Loser: "alpha"},
			}
			if diff := cmp.Diff(want, h.gw.Conflicts()); diff != "" {
				t.Errorf("Conflicts (-want +got):\n%s", diff)
			}
			if n := h.logs.FilterMessageSnippet("catalog conflict").Len(); n != 2 {
				t.Errorf("%d conflict warnings, want 2 (one per conflict, when it appeared)", n)
			}

			h.toolsChanged("zeta") // zeta stopped: alpha's echo takes over
			expectSignal(t, ctx, c.changed, "tools/list_changed after the winner withdrew")
			for descriptionOf(t, ctx, c, "echo") != "Alpha echoes." {
				expectSignal(t, ctx, c.changed, "tools/list_changed to alpha's echo")
			}
			res, err = c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
			if err != nil || text(t, res) != "called alpha__echo" {
				t.Fatalf("call echo = %+v, %v: want it routed to alpha__echo", res, err)
			}
			want = want[:1]
			if diff := cmp.Diff(want, h.gw.Conflicts()); diff != "" {
				t.Errorf("Conflicts after zeta's tools went (-want +got):\n%s", diff)
			}
		})
	}
}

// Two servers listing one URI: the first in config order is exposed, the
// conflict is reported; config order is the file order first, then the
// line.
func TestGateway_ResourceConflictByFileOrder(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	src := newFakeSource()
	src.declare("/home/u/.mcp.json", "alpha")   // line 2 of the second file
	src.declare("/proj/.mcp.json", "x", "beta") // line 3 of the first file
	src.status.ConfigFiles = []string{"/proj/.mcp.json", "/home/u/.mcp.json"}
	h := startGateway(t, src)
	c := h.connectInMemory(ctx, "")
	// The winner's items arrive first here, the loser's first in the
	// bare-names test: neither arrival order decides.
	h.resourcesChanged("beta", resource("beta", "test://shared", "Beta's."))
	h.resourcesChanged("alpha", resource("alpha", "test://shared", "Alpha's."))
	h.templatesChanged("beta", template("beta", "test://t/{x}"))
	h.templatesChanged("alpha", template("alpha", "test://t/{x}"))
	want := []gateway.Conflict{
		{Kind: messages.KindResourceTemplates, Key: "test://t/{x}", Winner: "beta", Loser: "alpha"},
		{Kind: messages.KindResources, Key: "test://shared", Winner: "beta", Loser: "alpha"},
	}
	// Barrier: a third server's resource is listed once every event
	// before it was applied.
	h.resourcesChanged("gamma", resource("gamma", "test://gamma", "Gamma's."))
	waitList(t, ctx, c.resourcesChanged, c.resourceURIs, "test://gamma", "test://shared", "template test://t/{x}")
	if diff := cmp.Diff(want, h.gw.Conflicts()); diff != "" {
		t.Errorf("Conflicts (-want +got):\n%s", diff)
	}
	res, err := c.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		if r.URI == "test://shared" && r.Description != "Beta's." {
			t.Errorf("test://shared is %q, want beta's (first in config order)", r.Description)
		}
	}
}

// Errors of gets and reads reach the client as JSON-RPC errors that say
// what to do.
func TestGateway_RequestErrorsMapped(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	upstream := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "upstream says: missing argument"}
	src := newFakeSource()
	src.prompts = []messages.Prompt{prompt("alpha", "greet", "Greets.")}
	src.resources = []messages.Resource{resource("alpha", "test://alpha/x", "X.")}
	src.get = func(context.Context, string, map[string]string) (*mcp.GetPromptResult, error) {
		return nil, fmt.Errorf("%w: %w", actors.ErrUpstream, upstream)
	}
	src.read = func(context.Context, string) (*mcp.ReadResourceResult, error) {
		return nil, fmt.Errorf("%w: %q", actors.ErrNotReady, "alpha")
	}
	h := startGateway(t, src)
	c := h.connectInMemory(ctx, "")
	waitList(t, ctx, c.promptsChanged, c.promptNames, "alpha__greet")
	_, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "alpha__greet"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != upstream.Code || wire.Message != upstream.Message {
		t.Errorf("get = %v, want the upstream's error passed through", err)
	}
	_, err = c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://alpha/x"})
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInternalError || !strings.Contains(wire.Message, `server "alpha" is not ready`) {
		t.Errorf("read = %v, want -32603 saying alpha is not ready", err)
	}
}

// A gap in the feed reloads prompts, resources and templates too: what
// the gateway missed is withdrawn or added.
func TestGateway_FeedGapReloadsTheCatalog(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	src := newFakeSource()
	src.prompts = []messages.Prompt{prompt("alpha", "greet", "Greets.")}
	src.resources = []messages.Resource{resource("alpha", "test://alpha/x", "X.")}
	h := startGateway(t, src)
	c := h.connectInMemory(ctx, "")
	waitList(t, ctx, c.promptsChanged, c.promptNames, "alpha__greet")
	waitList(t, ctx, c.resourcesChanged, c.resourceURIs, "test://alpha/x")

	src.mu.Lock()
	src.prompts = []messages.Prompt{prompt("beta", "greet", "Greets.")}
	src.resources = nil
	src.templates = []messages.ResourceTemplate{template("beta", "test://beta/{id}")}
	src.mu.Unlock()
	h.send(&messages.FeedTruncated{Since: 1, Next: 9, Reason: "fell behind"})
	waitList(t, ctx, c.promptsChanged, c.promptNames, "beta__greet")
	waitList(t, ctx, c.resourcesChanged, c.resourceURIs, "template test://beta/{id}")
}
