package gateway

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PageSize is how many items one page of tools/list, prompts/list,
// resources/list or resources/templates/list holds (the go-sdk server's
// default).
const PageSize = mcp.DefaultPageSize

// serveFromIndex is the innermost receiving middleware: it answers the
// four lists from the indexes, page by page, and routes tools/call,
// prompts/get and resources/read by them, so that nothing the gateway
// exposes is registered with the go-sdk's server (notify.go says how
// list_changed is still sent). completion/complete goes through the
// server's CompletionHandler (complete.go), which reads the indexes too.
// Everything else goes on to the SDK.
//
// Each request reaches its handler with the SDK's own context and
// request, as a registered handler would: the relays (progress, logging,
// sampling, elicitation) work as before.
func (g *Gateway) serveFromIndex(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if relayedMethods[method] {
			return verbatimRelay(ctx, method, req, func(ctx context.Context) (mcp.Result, error) {
				return g.routeRelayed(ctx, method, req, next)
			})
		}
		switch req := req.(type) {
		case *mcp.ListToolsRequest:
			return g.listTools(req.Params, legacy(req.Session))
		case *mcp.ListPromptsRequest:
			return g.listPrompts(req.Params, legacy(req.Session))
		case *mcp.ListResourcesRequest:
			return g.listResources(req.Params, legacy(req.Session))
		case *mcp.ListResourceTemplatesRequest:
			return g.listTemplates(req.Params, legacy(req.Session))
		}
		return next(ctx, method, req)
	}
}

// routeRelayed routes tools/call, prompts/get and resources/read by the
// indexes; completion/complete goes on to the go-sdk, which calls the
// CompletionHandler (complete.go).
func (g *Gateway) routeRelayed(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	switch req := req.(type) {
	case *mcp.CallToolRequest:
		g.mu.Lock()
		c, ok := g.tools.owner(req.Params.Name)
		g.mu.Unlock()
		if !ok {
			return g.callUnlisted(ctx, req) // early.go
		}
		return g.callTool(ctx, req, c)
	case *mcp.GetPromptRequest:
		g.mu.Lock()
		c, ok := g.prompts.owner(req.Params.Name)
		g.mu.Unlock()
		if !ok {
			return g.getUnlisted(ctx, req) // early.go
		}
		return g.getPrompt(ctx, req, c)
	case *mcp.ReadResourceRequest:
		return g.readResource(ctx, req)
	}
	return next(ctx, method, req)
}

// A cursor is the mark of the last item of the page before (its server
// and key, NUL-separated; neither holds a NUL), base64url-encoded: the
// next page starts after it, so items added or removed between two pages
// neither repeat nor hide the others.
func encodeCursor(m mark) string {
	return base64.RawURLEncoding.EncodeToString([]byte(m.server + "\x00" + m.key))
}

// decodeCursor reads a client's cursor ("" for the first page). A cursor
// the gateway did not make is invalid params, as the go-sdk answers.
func decodeCursor(cursor string) (mark, error) {
	if cursor == "" {
		return mark{}, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	server, key, ok := strings.Cut(string(raw), "\x00")
	if err != nil || !ok || server == "" {
		return mark{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
	}
	return mark{server, key}, nil
}

// pageOf is one page of ix after cursor, its items made by item, and
// the next page's cursor ("" after the last).
func pageOf[T, Out any](g *Gateway, ix *index[T], cursor string, item func(claim[T]) Out) ([]Out, string, error) {
	after, err := decodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	g.mu.Lock()
	claims, last := ix.page(after, PageSize)
	g.mu.Unlock()
	out := make([]Out, len(claims)) // never null on the wire
	for i, c := range claims {
		out[i] = item(c)
	}
	next := ""
	if last != (mark{}) {
		next = encodeCursor(last)
	}
	return out, next, nil
}

func (g *Gateway) listTools(p *mcp.ListToolsParams, legacy bool) (mcp.Result, error) {
	var cursor string
	if p != nil {
		cursor = p.Cursor
	}
	items, next, err := pageOf(g, g.tools, cursor, func(c claim[*mcp.Tool]) *mcp.Tool { return c.item })
	if err != nil {
		return nil, err
	}
	res := &mcp.ListToolsResult{Tools: items, NextCursor: next}
	res.CacheScope = "public"
	return forSession(res, legacy), nil
}

func (g *Gateway) listPrompts(p *mcp.ListPromptsParams, legacy bool) (mcp.Result, error) {
	var cursor string
	if p != nil {
		cursor = p.Cursor
	}
	page, next, err := pageOf(g, g.prompts, cursor, func(c claim[prompt]) prompt { return c.item })
	if err != nil {
		return nil, err
	}
	items := make([]*mcp.Prompt, len(page))
	stated := false // an argument's "required": false, which the typed prompt cannot say
	for i, p := range page {
		items[i], stated = p.Prompt, stated || p.stated != nil
	}
	res := &mcp.ListPromptsResult{Prompts: items, NextCursor: next}
	res.CacheScope = "public"
	if stated {
		return promptsAsSent(res, page, legacy)
	}
	return forSession(res, legacy), nil
}

func (g *Gateway) listResources(p *mcp.ListResourcesParams, legacy bool) (mcp.Result, error) {
	var cursor string
	if p != nil {
		cursor = p.Cursor
	}
	items, next, err := pageOf(g, g.resources, cursor, func(c claim[*mcp.Resource]) *mcp.Resource { return c.item })
	if err != nil {
		return nil, err
	}
	res := &mcp.ListResourcesResult{Resources: items, NextCursor: next}
	res.CacheScope = "public"
	return forSession(res, legacy), nil
}

func (g *Gateway) listTemplates(p *mcp.ListResourceTemplatesParams, legacy bool) (mcp.Result, error) {
	var cursor string
	if p != nil {
		cursor = p.Cursor
	}
	items, next, err := pageOf(g, g.templates, cursor, func(c claim[template]) *mcp.ResourceTemplate { return c.item.ResourceTemplate })
	if err != nil {
		return nil, err
	}
	res := &mcp.ListResourceTemplatesResult{ResourceTemplates: items, NextCursor: next}
	res.CacheScope = "public"
	return forSession(res, legacy), nil
}
