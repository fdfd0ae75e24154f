package gateway

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Source is the fleet a Gateway exposes; *actors.Supervisor satisfies it.
// Errors wrap the sentinels of package actors (ErrNotReady, ErrUpstream,
// ...).
type Source interface {
	// Tools returns the exposed tools of every ready server.
	Tools() []messages.Tool
	// CallTool calls a tool by its qualified name (actors.QualifiedName of
	// its prefix and name). The gateway passes actors.WithProgress when its
	// client asked for progress, and marks ctx with actors.WithCaller.
	CallTool(ctx context.Context, name string, args any, opts ...actors.CallOption) (*mcp.CallToolResult, error)
	// Prompts returns the prompts of every ready server.
	Prompts() []messages.Prompt
	// GetPrompt gets a prompt by its qualified name.
	GetPrompt(ctx context.Context, name string, args map[string]string, opts ...actors.CallOption) (*mcp.GetPromptResult, error)
	// Resources and ResourceTemplates return those of every ready server.
	Resources() []messages.Resource
	ResourceTemplates() []messages.ResourceTemplate
	// ReadResource reads a URI from the server that owns it.
	ReadResource(ctx context.Context, uri string, opts ...actors.CallOption) (*mcp.ReadResourceResult, error)
	// Complete completes an argument of a ref/prompt (by qualified name)
	// or a ref/resource (by URI template).
	Complete(ctx context.Context, ref *mcp.CompleteReference, argument mcp.CompleteParamsArgument, cctx *mcp.CompleteContext) (*mcp.CompleteResult, error)
	// SubscribeResource subscribes to a URI's updates, which arrive as
	// *messages.ResourceUpdated events; UnsubscribeResource drops one
	// such subscription.
	SubscribeResource(ctx context.Context, uri string) error
	UnsubscribeResource(uri string)
	// Status says where each server is declared (config order decides
	// conflicts).
	Status() messages.Status
}

// Gateway is one MCP server exposing a Source's tools, prompts, resources
// and resource templates. Create it with New, follow the fleet with Run,
// and serve it with ServeStdio or ServeListener (or connect sessions to
// Server yourself).
type Gateway struct {
	src    Source
	log    *zap.Logger
	slog   *slog.Logger
	server *mcp.Server
	names  Names
	// maxNameLength bounds exposed names, the client's wrapping
	// included (WithMaxNameLength); 0: no bound.
	maxNameLength int

	// levels follows the clients' logging/setLevel (relay.go); roots
	// their roots (relay_roots.go).
	levels logLevels
	roots  clientRoots

	mu sync.Mutex // guards the indexes; Run is their only writer
	// One index per kind: what each server claims and what is exposed.
	tools   *index[*mcp.Tool]
	prompts *index[prompt]
	// longNames holds the names already reported as shortened or too
	// long (names.go), so that each is reported once.
	longNames map[string]struct{}
	resources *index[*mcp.Resource]
	templates *index[template]

	subs subscriptions
	// startup holds the first lists (HoldFirstLists); nil: it holds none.
	startup *startup
	// tracer traces requests (WithTracerProvider); nil: none.
	tracer trace.Tracer

	// mount is set by Mount (mount.go); ended is closed once the
	// Supervisor it follows ends, which ends the serving (nil: never).
	mount *mount
	ended <-chan struct{}

	// eliciting counts the elicitations waiting for a client's answer;
	// answers keeps the answers POSTed meanwhile (elicit_verbatim.go).
	eliciting atomic.Int32
	answers   verbatim.Recent
}

// Instructions is what the gateway tells clients about itself.
const Instructions = "Tools, prompts and resources of the MCP servers supervised by mcpvisor. " +
	"Tools and prompts are named prefix__name, the prefix standing for their server (or as their servers name them, if the gateway runs with --names bare); a name too long for clients is shortened and ends with a short hash; resources keep their URIs. " +
	"The sets change as servers start, stop or fail; a list_changed notification announces every change."

// New builds a gateway over src. It exposes nothing until Run has loaded
// the fleet's catalog.
func New(src Source, logger *zap.Logger, opts ...Option) *Gateway {
	if logger == nil {
		logger = zap.NewNop()
	}
	l := logger.Named("mcp")
	g := &Gateway{
		src:           src,
		log:           logger,
		slog:          slog.New(zapslog.NewHandler(l.Core(), zapslog.WithName(l.Name()))),
		names:         NamesPrefixed,
		maxNameLength: DefaultMaxNameLength,
		tools:         newIndex[*mcp.Tool](messages.KindTools),
		prompts:       newIndex[prompt](messages.KindPrompts),
		resources:     newIndex[*mcp.Resource](messages.KindResources),
		templates:     newIndex[template](messages.KindResourceTemplates),
	}
	for _, o := range opts {
		o(g)
	}
	g.subs.init()
	g.server = mcp.NewServer(&mcp.Implementation{Name: "mcpvisor", Title: "mcpvisor gateway", Version: actors.Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Logger:       g.slog,
		// Every capability is advertised from the start, listChanged
		// included, even while nothing is exposed: a 2026-07-28 client
		// decides at connect time which notifications to listen for,
		// and a gateway starts empty and follows a fleet that may gain
		// any server at any time (the go-sdk's client opens its
		// subscriptions/listen stream only for what was advertised at
		// connect). Any server of the fleet could provide each one;
		// one that cannot answers with its own error, passed through.
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Completions: &mcp.CompletionCapabilities{},
			// Upstream log messages are relayed (relay.go).
			//lint:ignore SA1019 logging is deprecated on 2026-07-28 (SEP-2577), still relayed for the clients that use it
			Logging: &mcp.LoggingCapabilities{},
		},
		CompletionHandler:  g.complete,
		SubscribeHandler:   g.subscribe,
		UnsubscribeHandler: g.unsubscribe,
		// The clients' roots, relayed (relay_roots.go).
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) { g.clientRootsChanged(req.Session) },
		//lint:ignore SA1019 roots are deprecated on 2026-07-28 (SEP-2577), still relayed for the servers that ask
		RootsListChangedHandler: func(_ context.Context, req *mcp.RootsListChangedRequest) { g.clientRootsChanged(req.Session) },
	})
	// Innermost: lists, calls, gets and reads are answered from the
	// indexes (list.go), or, early, by the Source (early.go).
	g.server.AddReceivingMiddleware(g.serveFromIndex)
	g.server.AddSendingMiddleware(g.elicitAnswers)
	g.server.AddReceivingMiddleware(g.setLevelMiddleware)
	if g.tracer != nil {
		g.server.AddReceivingMiddleware(g.traced) // outermost
	}
	return g
}

// Server is the MCP server; connect sessions to it with Server.Connect or
// serve it with the go-sdk's handlers.
func (g *Gateway) Server() *mcp.Server { return g.server }

// Run loads the Source's catalog, then applies every catalog event
// (ToolsChanged, PromptsChanged, ResourcesChanged,
// ResourceTemplatesChanged) and relays every ResourceUpdated from events
// until ctx ends or events is closed. The caller owns the feed behind
// events (Supervisor.Follow): start it, from journal.Live, before calling
// Run so that no change falls between the load and the first event. A gap
// in the feed (a *messages.FeedTruncated) loads the catalog again. Call
// Run once.
func (g *Gateway) Run(ctx context.Context, events <-chan *messages.Envelope) {
	g.load()
	settleCheck, stopStartup := g.runStartup()
	defer stopStartup()
	for {
		select {
		case <-ctx.Done():
			return
		case env, ok := <-events:
			if !ok {
				return
			}
			g.handle(ctx, env.Event)
			settleCheck()
		}
	}
}

// handle applies one event: each catalog event carries the whole list of
// one server and kind, so applying them in order leaves the gateway equal
// to the last event of every server.
func (g *Gateway) handle(ctx context.Context, ev messages.Event) {
	switch e := ev.(type) {
	case *messages.ToolsChanged:
		g.applyTools(e.Server, e.Tools)
	case *messages.PromptsChanged:
		g.applyPrompts(e.Server, e.Prompts)
	case *messages.ResourcesChanged:
		g.applyResources(e.Server, e.Resources)
	case *messages.ResourceTemplatesChanged:
		g.applyTemplates(e.Server, e.Templates)
	case *messages.ResourceUpdated:
		g.resourceUpdated(ctx, e.URI)
	case *messages.FeedTruncated:
		g.log.Warn("gateway fell behind the fleet's events; reloading its catalog", zap.String("reason", e.Reason))
		g.load()
	}
}

// Exposed returns the tool names the gateway currently exposes, sorted.
func (g *Gateway) Exposed() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tools.keys()
}

// ExposedPrompts returns the prompt names the gateway exposes, sorted.
func (g *Gateway) ExposedPrompts() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.prompts.keys()
}

// Conflicts returns every standing conflict: a tool or prompt name, URI or
// URI template that two servers claim, with the server whose item is
// exposed, sorted by kind, key and loser.
func (g *Gateway) Conflicts() []Conflict {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Conflict
	out = append(out, g.tools.standing()...)
	out = append(out, g.prompts.standing()...)
	out = append(out, g.resources.standing()...)
	out = append(out, g.templates.standing()...)
	slices.SortFunc(out, func(a, b Conflict) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Loser, b.Loser))
	})
	return out
}

// load makes every index equal to a whole-fleet snapshot.
func (g *Gateway) load() {
	allTools, allPrompts := g.src.Tools(), g.src.Prompts()
	allResources, allTemplates := g.src.Resources(), g.src.ResourceTemplates()
	tools := byServer(allTools, func(t messages.Tool) string { return t.Server })
	prompts := byServer(allPrompts, func(p messages.Prompt) string { return p.Server })
	resources := byServer(allResources, func(r messages.Resource) string { return r.Server })
	templates := byServer(allTemplates, func(t messages.ResourceTemplate) string { return t.Server })
	g.mu.Lock()
	goneTools, gonePrompts := gone(g.tools.servers, tools), gone(g.prompts.servers, prompts)
	goneResources, goneTemplates := gone(g.resources.servers, resources), gone(g.templates.servers, templates)
	g.tools.reserve(len(allTools))
	g.prompts.reserve(len(allPrompts))
	g.resources.reserve(len(allResources))
	g.templates.reserve(len(allTemplates))
	g.mu.Unlock()
	for _, s := range goneTools {
		g.applyTools(s, nil)
	}
	for s, ts := range tools {
		g.applyTools(s, ts)
	}
	for _, s := range gonePrompts {
		g.applyPrompts(s, nil)
	}
	for s, ps := range prompts {
		g.applyPrompts(s, ps)
	}
	for _, s := range goneResources {
		g.applyResources(s, nil)
	}
	for s, rs := range resources {
		g.applyResources(s, rs)
	}
	for _, s := range goneTemplates {
		g.applyTemplates(s, nil)
	}
	for s, ts := range templates {
		g.applyTemplates(s, ts)
	}
}

// byServer groups a fleet-wide list by server. The fleet lists each
// server's items together, so each group is a slice of items, not a copy
// (a server listed in two runs gets a copy of both).
func byServer[T any](items []T, server func(T) string) map[string][]T {
	out := map[string][]T{}
	for start := 0; start < len(items); {
		s := server(items[start])
		end := start + 1
		for end < len(items) && server(items[end]) == s {
			end++
		}
		if had, ok := out[s]; ok {
			out[s] = append(slices.Clip(had), items[start:end]...)
		} else {
			out[s] = items[start:end:end]
		}
		start = end
	}
	return out
}

// gone lists the servers of had that now has none of.
func gone[T any](had []string, now map[string][]T) []string {
	var out []string
	for _, s := range had {
		if _, ok := now[s]; !ok {
			out = append(out, s)
		}
	}
	return out
}

// reportConflicts warns about conflicts that just appeared.
func (g *Gateway) reportConflicts(cs []Conflict) {
	for _, c := range cs {
		g.log.Warn("catalog conflict: the first server in config order wins",
			zap.String("kind", string(c.Kind)), zap.String("key", c.Key),
			zap.String("winner", c.Winner), zap.String("loser", c.Loser))
	}
}

// applyTools makes one server's exposed tools equal to tools: it adds new
// and changed tools, skips unusable ones with a warning, and withdraws the
// rest in one RemoveTools.
func (g *Gateway) applyTools(server string, tools []messages.Tool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	claims := newClaimSet[*mcp.Tool](len(tools))
	for _, t := range tools {
		qualified := qualifiedName(t.Prefix, t.Name)
		exposed := g.exposedName(messages.KindTools, server, t.Prefix, t.Name, qualified)
		fp := t.Hash
		if fp == "" {
			fp = fingerprint(t)
		}
		if c, same := g.tools.held(server, exposed, fp); same {
			claims.put(exposed, c)
			continue
		}
		tool, outErr, err := exportTool(exposed, t)
		if err != nil {
			g.log.Warn("tool skipped", zap.String("server", server), zap.String("tool", t.Name), zap.Error(err))
			continue
		}
		if outErr != nil {
			g.log.Warn("output schema dropped", zap.String("server", server), zap.String("tool", t.Name), zap.Error(outErr))
		}
		if claims.has(tool.Name) {
			g.log.Warn("tool skipped", zap.String("server", server), zap.String("tool", t.Name), zap.String("reason", "listed twice"))
			continue
		}
		claims.put(tool.Name, claim[*mcp.Tool]{server: server, qualified: qualified, fp: fp, item: tool})
	}
	ch := g.tools.apply(server, claims, g.first())
	g.reportConflicts(ch.conflicts)
	if len(ch.add)+len(ch.remove) == 0 {
		return
	}
	g.announce(messages.KindTools)
	if g.log.Core().Enabled(zap.DebugLevel) {
		slices.Sort(ch.add)
		g.log.Debug("tools updated", zap.String("server", server), zap.Int("tools", claims.len()),
			zap.Strings("added", ch.add), zap.Strings("removed", ch.remove))
	}
}
