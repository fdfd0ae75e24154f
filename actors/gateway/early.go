package gateway

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// Requests that come early. A one-shot client (the MCP Inspector's CLI, an
// SDK script) calls, gets or reads right after it connects, while the fleet
// starts. A name or URI the gateway does not expose may then be one that a
// server still starting will provide: such a request goes to the Source,
// which waits for that server (actors/internal/fleet/starting.go: at most the longer of
// its connect and call timeouts, never past the request's context) and
// answers; "unknown tool", "unknown prompt" and "resource not found" are
// answered at once only when no server could still provide it. Names and
// URIs the gateway exposes from the catalog cache go to the Source as
// usual, which waits for their server the same way.

// callUnlisted serves a tools/call of a name the gateway does not expose.
func (g *Gateway) callUnlisted(ctx context.Context, req *mcp.CallToolRequest) (mcp.Result, error) {
	name := req.Params.Name
	if c, ok := afterStartup(ctx, g, func() (claim[*mcp.Tool], bool) { return g.tools.owner(name) }); ok {
		return g.callTool(ctx, req, c)
	}
	server, qualified, ok := g.mayProvide(name)
	if !ok {
		return nil, unknownToolError(name)
	}
	return g.callTool(ctx, req, claim[*mcp.Tool]{server: server, qualified: qualified, item: &mcp.Tool{Name: name}})
}

// getUnlisted serves a prompts/get of a name the gateway does not expose.
func (g *Gateway) getUnlisted(ctx context.Context, req *mcp.GetPromptRequest) (mcp.Result, error) {
	name := req.Params.Name
	if c, ok := afterStartup(ctx, g, func() (claim[prompt], bool) { return g.prompts.owner(name) }); ok {
		return g.getPrompt(ctx, req, c)
	}
	server, qualified, ok := g.mayProvide(name)
	if !ok {
		return nil, unknownPromptError(name)
	}
	return g.getPrompt(ctx, req, claim[prompt]{server: server, qualified: qualified, item: prompt{Prompt: &mcp.Prompt{Name: name}}})
}

// mayProvide finds the server a tool or prompt name the gateway does not
// expose would be its: the server of its prefix when it is starting (its
// catalog not known yet, or known from the cache: the Source answers
// unknown at once for a name its cached catalog lacks), ready (its catalog
// not applied here yet) or failed (the Source says it is not ready); or
// none yet, before the fleet has read its config (the Source waits for
// that). Names that are not prefix__name go nowhere: under --names bare
// the gateway waits for the startup hold instead (afterStartup).
// qualified is the fleet-wide name to ask the Source for: name with the
// server's own prefix where the exposed one was shortened to fit
// (names.go; a shortened tool name itself cannot be undone here, and
// stays unknown until the server's catalog is applied).
func (g *Gateway) mayProvide(name string) (server, qualified string, ok bool) {
	if g.names == NamesBare {
		return "", "", false
	}
	prefix, rest, ok := actors.SplitName(name)
	if !ok {
		return "", "", false
	}
	st := g.src.Status()
	row, found := serverByPrefix(st, prefix)
	switch {
	case !found && !applied(st):
		return "", name, true // its config is still being read: the Source waits for it
	case !found:
		return "", "", false
	case row.State == messages.StatePending, row.State == messages.StateStarting, row.State == messages.StateReady, row.State == messages.StateFailed:
		return row.Name, qualifiedName(row.Prefix, rest), true
	}
	return "", "", false
}

// applied reports whether the fleet has applied a desired state (before,
// its config files are still being read: no server is known yet).
func applied(st messages.Status) bool {
	return st.ObservedGeneration > 0 && st.ObservedGeneration >= st.Generation
}

// anyStarting reports whether a server of the fleet is on its way up (or
// the fleet has not read its config yet): a
// URI nobody exposes may be its, and goes to the Source, which waits for
// the servers that may list it.
func (g *Gateway) anyStarting() bool {
	st := g.src.Status()
	if !applied(st) {
		return true
	}
	for _, s := range st.Servers {
		switch s.State {
		case messages.StatePending, messages.StateStarting:
			return true
		}
	}
	return false
}

// afterStartup, under --names bare, waits for the startup hold (a bare
// name tells no server: only the whole fleet's catalog does), then looks
// the item up again. With prefixed names, or with no hold, or once it is
// released, it finds nothing new.
func afterStartup[T any](ctx context.Context, g *Gateway, lookup func() (claim[T], bool)) (claim[T], bool) {
	var zero claim[T]
	if g.names != NamesBare || g.startup == nil {
		return zero, false
	}
	select {
	case <-g.startup.settled:
		return zero, false // settled before the request came: it saw all
	default:
	}
	g.log.Debug("request waits for the first lists' hold (a bare name tells no server)")
	select {
	case <-g.startup.settled:
	case <-ctx.Done():
		return zero, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return lookup()
}

// serverByPrefix is the server whose exposed prefix is prefix, and its
// state in st; "" if st has no such server.
func serverByPrefix(st messages.Status, prefix string) (row messages.ServerStatus, found bool) {
	for _, s := range st.Servers {
		if s.Prefix != "" && config.ExposesPrefix(s.Prefix, prefix) {
			return s, true
		}
	}
	return messages.ServerStatus{}, false
}

func unknownToolError(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
}

func unknownPromptError(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
}
