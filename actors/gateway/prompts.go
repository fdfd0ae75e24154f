package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/messages"
)

// applyPrompts makes one server's exposed prompts equal to prompts.
func (g *Gateway) applyPrompts(server string, prompts []messages.Prompt) {
	g.mu.Lock()
	defer g.mu.Unlock()
	claims := make(map[string]claim[*mcp.Prompt], len(prompts))
	for _, p := range prompts {
		if p.Name == "" {
			g.log.Warn("prompt skipped", zap.String("server", server), zap.String("reason", "no name"))
			continue
		}
		qualified := qualifiedName(p.Prefix, p.Name)
		exposed := g.exposedName(qualified, p.Name)
		if _, dup := claims[exposed]; dup {
			g.log.Warn("prompt skipped", zap.String("server", server), zap.String("prompt", p.Name), zap.String("reason", "listed twice"))
			continue
		}
		fp := p.Hash
		if fp == "" {
			fp = fingerprintOf(p)
		}
		if c, same := g.prompts.held(server, exposed, fp); same {
			claims[exposed] = c
			continue
		}
		claims[exposed] = claim[*mcp.Prompt]{server: server, name: p.Name, qualified: qualified, fp: fp, item: exportPrompt(exposed, p)}
	}
	ch := g.prompts.apply(server, claims, g.first())
	g.reportConflicts(ch.conflicts)
	for _, c := range ch.add {
		g.server.AddPrompt(c.item, g.promptHandler(c.server, c.qualified, c.item.Name))
	}
	if len(ch.remove) > 0 {
		g.server.RemovePrompts(ch.remove...)
	}
	if len(ch.add)+len(ch.remove) > 0 {
		g.log.Debug("prompts updated", zap.String("server", server), zap.Int("prompts", len(claims)),
			zap.Int("added", len(ch.add)), zap.Strings("removed", ch.remove))
	}
}

// exportPrompt is the gateway's copy of one fleet prompt, named exposed.
func exportPrompt(exposed string, p messages.Prompt) *mcp.Prompt {
	out := &mcp.Prompt{Name: exposed, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		out.Arguments = append(out.Arguments, &mcp.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
	}
	return out
}

// promptHandler routes prompts/get of one exposed prompt to its server.
func (g *Gateway) promptHandler(server, qualified, exposed string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		ctx, opts := callOptions(ctx, req.Session, req.Params, req.ClientCapabilities())
		res, err := g.src.GetPrompt(ctx, qualified, req.Params.Arguments, opts...)
		if err != nil {
			if ctx.Err() == nil {
				g.log.Debug("prompt get failed", zap.String("prompt", exposed), zap.Error(err))
			}
			return nil, mapRequestError(fmt.Sprintf("prompt %q", exposed), server, err)
		}
		if res == nil {
			return nil, mapRequestError(fmt.Sprintf("prompt %q", exposed), server, errors.New("the server returned no result"))
		}
		cp := *res
		cp.Meta = withoutServerInfo(res.Meta)
		return &cp, nil
	}
}

// fingerprintOf covers everything the gateway exposes of a catalog item
// (its JSON form), so an unchanged item is not exposed again; items from
// the fleet carry their own Hash, this is for those that do not. The
// server is part of it, which only costs a re-add when an item moves.
func fingerprintOf(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		raw = fmt.Appendf(nil, "%#v", v)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:12])
}
