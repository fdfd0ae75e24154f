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

	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
	"github.com/mcpvisor/mcpvisor/messages"
)

// applyPrompts makes one server's exposed prompts equal to prompts.
func (g *Gateway) applyPrompts(server string, prompts []messages.Prompt) {
	g.mu.Lock()
	defer g.mu.Unlock()
	claims := newClaimSet[prompt](len(prompts))
	var made slab[mcp.Prompt]
	for i, p := range prompts {
		if p.Name == "" {
			g.log.Warn("prompt skipped", zap.String("server", server), zap.String("reason", "no name"))
			continue
		}
		qualified := qualifiedName(p.Prefix, p.Name)
		exposed := g.exposedName(messages.KindPrompts, server, p.Prefix, p.Name, qualified)
		if claims.has(exposed) {
			g.log.Warn("prompt skipped", zap.String("server", server), zap.String("prompt", p.Name), zap.String("reason", "listed twice"))
			continue
		}
		fp := p.Hash
		if fp == "" {
			fp = fingerprintOf(p)
		}
		if c, same := g.prompts.held(server, exposed, fp); same {
			claims.put(exposed, c)
			continue
		}
		claims.put(exposed, claim[prompt]{server: server, qualified: qualified, fp: fp, item: exportPrompt(made.next(len(prompts)-i), exposed, p)})
	}
	ch := g.prompts.apply(server, claims, g.first())
	g.reportConflicts(ch.conflicts)
	if len(ch.add)+len(ch.remove) > 0 {
		g.announce(messages.KindPrompts)
		g.log.Debug("prompts updated", zap.String("server", server), zap.Int("prompts", claims.len()),
			zap.Int("added", len(ch.add)), zap.Strings("removed", ch.remove))
	}
}

// prompt is one exposed prompt: the go-sdk's type, and which of its
// arguments' "required" the server sent (nil if none did; the typed
// argument cannot tell false from absent).
type prompt struct {
	*mcp.Prompt
	stated []bool
}

// exportPrompt makes out the gateway's copy of one fleet prompt, named
// exposed.
func exportPrompt(out *mcp.Prompt, exposed string, p messages.Prompt) prompt {
	*out = mcp.Prompt{Name: exposed, Title: p.Title, Description: p.Description}
	var stated []bool
	if len(p.Arguments) > 0 {
		args := make([]mcp.PromptArgument, len(p.Arguments))
		out.Arguments = make([]*mcp.PromptArgument, len(p.Arguments))
		for i, a := range p.Arguments {
			args[i] = mcp.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required}
			out.Arguments[i] = &args[i]
			if a.RequiredStated && !a.Required {
				if stated == nil {
					stated = make([]bool, len(p.Arguments))
				}
				stated[i] = true
			}
		}
	}
	return prompt{Prompt: out, stated: stated}
}

// getPrompt routes a prompts/get of an exposed prompt (server's prompt,
// named qualified across the fleet) to its server.
func (g *Gateway) getPrompt(ctx context.Context, req *mcp.GetPromptRequest, c claim[prompt]) (*mcp.GetPromptResult, error) {
	server, exposed := c.server, c.item.Name
	ctx, opts := callOptions(ctx, req.Session, req.Params, clientCapabilities(req))
	res, err := g.src.GetPrompt(ctx, c.qualified, req.Params.Arguments, opts...)
	if err != nil {
		if ctx.Err() == nil {
			g.log.Debug("prompt get failed", zap.String("prompt", exposed), zap.Error(err))
		}
		return nil, mapRequestError(fmt.Sprintf("prompt %q", exposed), server, err)
	}
	if res == nil {
		return nil, mapRequestError(fmt.Sprintf("prompt %q", exposed), server, errors.New("the server returned no result"))
	}
	if _, ok := res.Meta[mcp.MetaKeyServerInfo]; !ok {
		return res, nil
	}
	cp := *res
	cp.Meta = withoutServerInfo(res.Meta)
	return &cp, nil
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

// promptsAsSent is a prompts/list page whose prompts are written by the
// gateway (promptWire), so that an argument's "required": false that its
// server sent reaches the client: the go-sdk's PromptArgument omits a
// false Required.
func promptsAsSent(res *mcp.ListPromptsResult, page []prompt, legacy bool) (mcp.Result, error) {
	out := make([]promptWire, len(page))
	for i, p := range page {
		out[i] = promptWire{Prompt: p.Prompt, Arguments: make([]argumentWire, len(p.Arguments))}
		for j, a := range p.Arguments {
			out[i].Arguments[j] = argumentWire{PromptArgument: a}
			if a.Required || p.stated != nil && p.stated[j] {
				out[i].Arguments[j].Required = &a.Required
			}
		}
	}
	prompts, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &verbatimResult{Result: res, legacy: legacy, set: []verbatim.Member{{Key: "prompts", Value: prompts}}}, nil
}

// promptWire is an mcp.Prompt whose arguments, if set, are written in
// place of its own.
type promptWire struct {
	*mcp.Prompt
	Arguments []argumentWire `json:"arguments,omitempty"`
}

// argumentWire is an mcp.PromptArgument whose Required, if set, is
// written even when false.
type argumentWire struct {
	*mcp.PromptArgument
	Required *bool `json:"required,omitempty"`
}
