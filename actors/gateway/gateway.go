package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Source is the fleet a Gateway exposes; *actors.Supervisor satisfies it.
type Source interface {
	// Tools returns the exposed tools of every ready server.
	Tools() []messages.Tool
	// CallTool calls a tool by its server__tool name. Errors wrap the
	// sentinels of package actors (ErrNotReady, ErrUpstream, ...).
	CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error)
}

// Gateway is one MCP server exposing a Source's tools. Create it with New,
// follow the fleet with Run, and serve it with ServeStdio or ServeListener
// (or connect sessions to Server yourself).
type Gateway struct {
	src    Source
	log    *zap.Logger
	slog   *slog.Logger
	server *mcp.Server

	mu sync.Mutex // guards exposed; Run is its only writer
	// exposed is what the server currently has: server → upstream tool
	// name → fingerprint of what was added.
	exposed map[string]map[string]string
}

// Instructions is what the gateway tells clients about itself.
const Instructions = "Tools of the MCP servers supervised by mcpvisor, each named server__tool. " +
	"The set changes as servers start, stop or fail; a notifications/tools/list_changed announces every change."

// New builds a gateway over src. It exposes nothing until Run has loaded
// the fleet's tools.
func New(src Source, logger *zap.Logger) *Gateway {
	if logger == nil {
		logger = zap.NewNop()
	}
	l := logger.Named("mcp")
	g := &Gateway{
		src:     src,
		log:     logger,
		slog:    slog.New(zapslog.NewHandler(l.Core(), zapslog.WithName(l.Name()))),
		exposed: map[string]map[string]string{},
	}
	g.server = mcp.NewServer(&mcp.Implementation{Name: "mcpvisor", Title: "mcpvisor gateway", Version: actors.Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Logger:       g.slog,
		// Advertise tools.listChanged even while no tool exists: a
		// 2026-07-28 client decides at connect time whether to open its
		// notification stream, and a gateway usually starts empty (this
		// is what the deprecated HasTools:true did; libraries.md §2.2).
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	return g
}

// Server is the MCP server; connect sessions to it with Server.Connect or
// serve it with the go-sdk's handlers.
func (g *Gateway) Server() *mcp.Server { return g.server }

// Run loads the Source's tools, then applies every ToolsChanged from
// events until ctx ends or events is closed. The caller owns the feed
// behind events (Supervisor.Follow): start it, from actors.Live, before
// calling Run so that no change falls between the load and the first
// event. A gap in the feed (a *messages.FeedTruncated) loads the tools
// again. Call Run once.
func (g *Gateway) Run(ctx context.Context, events <-chan *messages.Envelope) {
	g.load(g.src.Tools())
	for {
		select {
		case <-ctx.Done():
			return
		case env, ok := <-events:
			if !ok {
				return
			}
			switch ev := env.Event.(type) {
			case *messages.ToolsChanged:
				g.apply(ev.Server, ev.Tools)
			case *messages.FeedTruncated:
				g.log.Warn("gateway fell behind the fleet's events; reloading its tools", zap.String("reason", ev.Reason))
				g.load(g.src.Tools())
			}
		}
	}
}

// Exposed returns the names the gateway currently exposes, sorted.
func (g *Gateway) Exposed() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for server, tools := range g.exposed {
		for name := range tools {
			out = append(out, actors.QualifiedName(server, name))
		}
	}
	slices.Sort(out)
	return out
}

// load makes the exposed set equal to a whole-fleet snapshot.
func (g *Gateway) load(tools []messages.Tool) {
	byServer := map[string][]messages.Tool{}
	for _, t := range tools {
		byServer[t.Server] = append(byServer[t.Server], t)
	}
	g.mu.Lock()
	var gone []string
	for server := range g.exposed {
		if _, ok := byServer[server]; !ok {
			gone = append(gone, server)
		}
	}
	g.mu.Unlock()
	for _, server := range gone {
		g.apply(server, nil)
	}
	for server, ts := range byServer {
		g.apply(server, ts)
	}
}

// apply makes one server's exposed tools equal to tools: it adds new and
// changed tools, skips unusable ones with a warning, and withdraws the
// rest in one RemoveTools.
func (g *Gateway) apply(server string, tools []messages.Tool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	old := g.exposed[server]
	next := make(map[string]string, len(tools))
	var added []string
	for _, t := range tools {
		fp := fingerprint(t)
		if prev, ok := old[t.Name]; ok && prev == fp {
			next[t.Name] = fp
			continue
		}
		if err := g.add(server, t); err != nil {
			g.log.Warn("tool skipped", zap.String("server", server), zap.String("tool", t.Name), zap.Error(err))
			continue
		}
		next[t.Name] = fp
		added = append(added, t.Name)
	}
	var removed []string
	for name := range old {
		if _, keep := next[name]; !keep {
			removed = append(removed, actors.QualifiedName(server, name))
		}
	}
	if len(removed) > 0 {
		slices.Sort(removed)
		g.server.RemoveTools(removed...)
	}
	if len(next) == 0 {
		delete(g.exposed, server)
	} else {
		g.exposed[server] = next
	}
	if len(added)+len(removed) > 0 {
		g.log.Debug("tools updated", zap.String("server", server), zap.Int("tools", len(next)),
			zap.Strings("added", added), zap.Strings("removed", removed))
	}
}

// add exposes one tool. The go-sdk panics on schemas it cannot serve;
// exportTool catches the known cases, the recover whatever a newer SDK adds.
func (g *Gateway) add(server string, t messages.Tool) (err error) {
	tool, outErr, err := exportTool(server, t)
	if err != nil {
		return err
	}
	if outErr != nil {
		g.log.Warn("output schema dropped", zap.String("server", server), zap.String("tool", t.Name), zap.Error(outErr))
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("refused by the MCP SDK: %v", r)
		}
	}()
	g.server.AddTool(tool, g.handler(server, tool.Name))
	return nil
}
