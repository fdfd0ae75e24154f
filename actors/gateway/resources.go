package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/messages"
)

// applyResources makes one server's exposed resources equal to resources.
// Resources keep their URIs; of two servers that list one URI, the first
// in config order is exposed (and reads of it go to that server).
func (g *Gateway) applyResources(server string, resources []messages.Resource) {
	g.mu.Lock()
	defer g.mu.Unlock()
	claims := make(map[string]claim[*mcp.Resource], len(resources))
	for _, r := range resources {
		fp := r.Hash
		if fp == "" {
			fp = fingerprintOf(r)
		}
		if c, same := g.resources.held(server, r.URI, fp); same {
			claims[r.URI] = c
			continue
		}
		if err := checkURI(r.URI); err != nil {
			g.log.Warn("resource skipped", zap.String("server", server), zap.String("uri", r.URI), zap.Error(err))
			continue
		}
		res := &mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType,
			Size: r.Size, Annotations: resourceAnnotations(r.Annotations)}
		claims[r.URI] = claim[*mcp.Resource]{server: server, name: r.URI, qualified: r.URI, fp: fp, item: res}
	}
	ch := g.resources.apply(server, claims, g.first())
	g.reportConflicts(ch.conflicts)
	for _, c := range ch.add {
		if err := g.addResource(c.item); err != nil {
			g.log.Warn("resource skipped", zap.String("server", c.server), zap.String("uri", c.name), zap.Error(err))
			g.resources.reject(c.item.URI)
		}
	}
	if len(ch.remove) > 0 {
		g.server.RemoveResources(ch.remove...)
	}
	if len(ch.add)+len(ch.remove) > 0 {
		g.log.Debug("resources updated", zap.String("server", server), zap.Int("resources", len(claims)),
			zap.Int("added", len(ch.add)), zap.Int("removed", len(ch.remove)))
	}
}

// applyTemplates makes one server's exposed resource templates equal to
// templates, keyed by URI template.
func (g *Gateway) applyTemplates(server string, templates []messages.ResourceTemplate) {
	g.mu.Lock()
	defer g.mu.Unlock()
	claims := make(map[string]claim[*mcp.ResourceTemplate], len(templates))
	for _, t := range templates {
		fp := t.Hash
		if fp == "" {
			fp = fingerprintOf(t)
		}
		if c, same := g.templates.held(server, t.URITemplate, fp); same {
			claims[t.URITemplate] = c
			continue
		}
		if t.URITemplate == "" {
			g.log.Warn("resource template skipped", zap.String("server", server), zap.String("reason", "no URI template"))
			continue
		}
		rt := &mcp.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description,
			MIMEType: t.MIMEType, Annotations: resourceAnnotations(t.Annotations)}
		claims[t.URITemplate] = claim[*mcp.ResourceTemplate]{server: server, name: t.URITemplate, qualified: t.URITemplate, fp: fp, item: rt}
	}
	ch := g.templates.apply(server, claims, g.first())
	g.reportConflicts(ch.conflicts)
	for _, c := range ch.add {
		if err := g.addTemplate(c.item); err != nil {
			g.log.Warn("resource template skipped", zap.String("server", c.server), zap.String("uriTemplate", c.name), zap.Error(err))
			g.templates.reject(c.item.URITemplate)
		}
	}
	if len(ch.remove) > 0 {
		g.server.RemoveResourceTemplates(ch.remove...)
	}
	if len(ch.add)+len(ch.remove) > 0 {
		g.log.Debug("resource templates updated", zap.String("server", server), zap.Int("templates", len(claims)),
			zap.Int("added", len(ch.add)), zap.Strings("removed", ch.remove))
	}
}

// checkURI refuses what Server.AddResource would panic on.
func checkURI(uri string) error {
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return err
	case u.Scheme == "":
		return errors.New("URI is not absolute")
	}
	return nil
}

// addResource and addTemplate expose one item; the go-sdk panics on a URI
// or URI template it cannot use.
func (g *Gateway) addResource(r *mcp.Resource) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("refused by the MCP SDK: %v", p)
		}
	}()
	g.server.AddResource(r, g.read)
	return nil
}

func (g *Gateway) addTemplate(t *mcp.ResourceTemplate) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("refused by the MCP SDK: %v", p)
		}
	}()
	g.server.AddResourceTemplate(t, g.read)
	return nil
}

// read serves resources/read of an exposed resource or of a URI that an
// exposed template matches (the go-sdk refuses any other URI). The Source
// routes it to the owning server, by the same config order.
func (g *Gateway) read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	ctx, opts := callOptions(ctx, req.Session, req.Params, req.ClientCapabilities())
	res, err := g.src.ReadResource(ctx, uri, opts...)
	what := fmt.Sprintf("resource %q", uri)
	if err != nil {
		if ctx.Err() == nil {
			g.log.Debug("resource read failed", zap.String("uri", uri), zap.Error(err))
		}
		return nil, mapRequestError(what, g.resourceOwner(uri), err)
	}
	if res == nil || (res.Contents == nil && res.InputRequests == nil) { // input requests pass through (see callOptions)
		return nil, mapRequestError(what, g.resourceOwner(uri), errors.New("the server returned no contents"))
	}
	cp := *res
	cp.Meta = withoutServerInfo(res.Meta)
	return &cp, nil
}

// resourceOwner names the server that exposes a listed URI, for messages
// ("" for a URI that only a template matches).
func (g *Gateway) resourceOwner(uri string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.resources.owner(uri); ok {
		return c.server
	}
	return ""
}

// resourceAnnotations re-encodes a resource's hints; hints that do not
// decode are dropped (they are advisory).
func resourceAnnotations(a any) *mcp.Annotations {
	if a == nil {
		return nil
	}
	raw, err := json.Marshal(a)
	if err != nil {
		return nil
	}
	var out mcp.Annotations
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return &out
}
