package gateway

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// complete routes completion/complete by its ref: a ref/prompt names an
// exposed prompt, which goes to its server under its qualified name; a
// ref/resource keeps its URI template (or URI), which the Source routes to
// the server that owns it.
func (g *Gateway) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref := *req.Params.Ref
	var what, server string
	switch ref.Type {
	case "ref/prompt":
		what = fmt.Sprintf("completion of prompt %q", ref.Name)
		g.mu.Lock()
		c, ok := g.prompts.owner(ref.Name)
		g.mu.Unlock()
		switch {
		case ok:
			server = c.server
			ref.Name = c.qualified
		default:
			// A prompt of a server still starting goes under its name
			// (early.go).
			var qualified string
			if server, qualified, ok = g.mayProvide(ref.Name); !ok {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: unknown prompt %q", what, ref.Name)}
			}
			ref.Name = qualified
		}
	case "ref/resource":
		what = fmt.Sprintf("completion of resource %q", ref.URI)
		g.mu.Lock()
		if c, ok := g.templates.owner(ref.URI); ok {
			server = c.server
		} else if c, ok := g.resources.owner(ref.URI); ok {
			server = c.server
		}
		g.mu.Unlock()
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("completion: unknown ref type %q (want ref/prompt or ref/resource)", ref.Type)}
	}
	res, err := g.src.Complete(ctx, &ref, req.Params.Argument, req.Params.Context)
	if err != nil {
		if ctx.Err() == nil {
			g.log.Debug("completion failed", zap.String("ref", ref.Type), zap.Error(err))
		}
		return nil, mapRequestError(what, server, err)
	}
	if res == nil {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
	cp := *res
	cp.Meta = withoutServerInfo(res.Meta)
	if cp.Completion.Values == nil {
		cp.Completion.Values = []string{}
	}
	return &cp, nil
}
