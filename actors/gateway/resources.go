package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// applyResources makes one server's exposed resources equal to resources.
// Resources keep their URIs; of two servers that list one URI, the first
// in config order is exposed (and reads of it go to that server).
func (g *Gateway) applyResources(server string, resources []messages.Resource) {
	g.mu.Lock()
	defer g.mu.Unlock()
	claims := newClaimSet[*mcp.Resource](len(resources))
	var made slab[mcp.Resource]
	for i, r := range resources {
		fp := r.Hash
		if fp == "" {
			fp = fingerprintOf(r)
		}
		if c, same := g.resources.held(server, r.URI, fp); same {
			claims.put(r.URI, c)
			continue
		}
		if err := checkURI(r.URI); err != nil {
			g.log.Warn("resource skipped", zap.String("server", server), zap.String("uri", r.URI), zap.Error(err))
			continue
		}
		res := made.next(len(resources) - i)
		*res = mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType,
			Size: r.Size, Annotations: resourceAnnotations(r.Annotations)}
		claims.put(r.URI, claim[*mcp.Resource]{server: server, fp: fp, item: res})
	}
	ch := g.resources.apply(server, claims, g.first())
	g.reportConflicts(ch.conflicts)
	if len(ch.add)+len(ch.remove) > 0 {
		g.announce(messages.KindResources)
		g.log.Debug("resources updated", zap.String("server", server), zap.Int("resources", claims.len()),
			zap.Int("added", len(ch.add)), zap.Int("removed", len(ch.remove)))
	}
}

// template is one exposed resource template and its compiled matcher.
type template struct {
	*mcp.ResourceTemplate
	match *regexp.Regexp
}

// applyTemplates makes one server's exposed resource templates equal to
// templates, keyed by URI template.
func (g *Gateway) applyTemplates(server string, templates []messages.ResourceTemplate) {
	g.mu.Lock()
	defer g.mu.Unlock()
	claims := newClaimSet[template](len(templates))
	for _, t := range templates {
		fp := t.Hash
		if fp == "" {
			fp = fingerprintOf(t)
		}
		if c, same := g.templates.held(server, t.URITemplate, fp); same {
			claims.put(t.URITemplate, c)
			continue
		}
		match, err := compileTemplate(t.URITemplate)
		if err != nil {
			g.log.Warn("resource template skipped", zap.String("server", server), zap.String("uriTemplate", t.URITemplate), zap.Error(err))
			continue
		}
		rt := &mcp.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description,
			MIMEType: t.MIMEType, Annotations: resourceAnnotations(t.Annotations)}
		claims.put(t.URITemplate, claim[template]{server: server, fp: fp,
			item: template{ResourceTemplate: rt, match: match}})
	}
	ch := g.templates.apply(server, claims, g.first())
	g.reportConflicts(ch.conflicts)
	if len(ch.add)+len(ch.remove) > 0 {
		g.announce(messages.KindResourceTemplates)
		g.log.Debug("resource templates updated", zap.String("server", server), zap.Int("templates", claims.len()),
			zap.Int("added", len(ch.add)), zap.Strings("removed", ch.remove))
	}
}

// compileTemplate parses an RFC 6570 URI template (an absolute one) into
// the expression the URIs it stands for match.
func compileTemplate(uriTemplate string) (*regexp.Regexp, error) {
	if uriTemplate == "" {
		return nil, errors.New("no URI template")
	}
	if err := checkURI(uriTemplate); err != nil {
		return nil, err
	}
	t, err := uritemplate.New(uriTemplate)
	if err != nil {
		return nil, err
	}
	return t.Regexp(), nil
}

// checkURI refuses a URI that is not absolute (RFC 3986: a scheme, a
// letter then letters, digits, "+", "-" or ".", then ":") or that holds
// control characters or spaces.
func checkURI(uri string) error {
	colon := strings.IndexByte(uri, ':')
	if colon <= 0 {
		return errors.New("URI is not absolute")
	}
	for i := 0; i < colon; i++ {
		c := uri[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return errors.New("URI is not absolute")
		}
	}
	for i := 0; i < len(uri); i++ {
		if uri[i] <= ' ' || uri[i] == 0x7f {
			return fmt.Errorf("URI holds a control character or a space at byte %d", i)
		}
	}
	return nil
}

// readResource serves a resources/read of a URI the gateway exposes, or
// that an exposed template matches (any other is not found, as the
// go-sdk's server answers, unless a server still starting may list it:
// early.go). The Source routes it to the owning server, by the same config
// order. As the go-sdk's server does, contents without a URI get the read
// one, and without a MIME type the listed one.
func (g *Gateway) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	server, mimeType, listed := g.resourceRoute(uri)
	if !listed && !g.anyStarting() {
		return nil, resourceNotFound(uri)
	}
	ctx, opts := callOptions(ctx, req.Session, req.Params, clientCapabilities(req))
	res, err := g.src.ReadResource(ctx, uri, opts...)
	what := fmt.Sprintf("resource %q", uri)
	if err != nil && !listed && errors.Is(err, actors.ErrUnknownResource) {
		return nil, resourceNotFound(uri) // no server listed it once up
	}
	if err != nil {
		if ctx.Err() == nil {
			g.log.Debug("resource read failed", zap.String("uri", uri), zap.Error(err))
		}
		return nil, mapRequestError(what, server, err)
	}
	if res == nil || (res.Contents == nil && res.InputRequests == nil) { // input requests pass through (see callOptions)
		return nil, mapRequestError(what, server, errors.New("the server returned no contents"))
	}
	cp := *res
	cp.Meta = withoutServerInfo(res.Meta)
	if cp.CacheScope == "" {
		cp.CacheScope = "public"
	}
	cloned := false
	for i, c := range cp.Contents {
		if c == nil || c.URI != "" && (c.MIMEType != "" || mimeType == "") {
			continue
		}
		if !cloned {
			cp.Contents, cloned = slices.Clone(res.Contents), true
		}
		filled := *c
		filled.URI = cmp.Or(filled.URI, uri)
		filled.MIMEType = cmp.Or(filled.MIMEType, mimeType)
		cp.Contents[i] = &filled
	}
	return &cp, nil
}

// resourceRoute finds what serves uri: the server exposing it, and its
// listed MIME type; else the first exposed template (in order) that
// matches it.
func (g *Gateway) resourceRoute(uri string) (server, mimeType string, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.resources.owner(uri); ok {
		return c.server, c.item.MIMEType, true
	}
	// Of the templates that match, the one listed first in config order
	// (templates are few; a read is not worth an index of them).
	var servers []string
	mimeTypes := map[string]string{}
	for _, c := range g.templates.from(mark{}) {
		if c.item.match.MatchString(uri) {
			if _, seen := mimeTypes[c.server]; !seen {
				servers = append(servers, c.server)
				mimeTypes[c.server] = c.item.MIMEType
			}
		}
	}
	switch len(servers) {
	case 0:
	case 1:
		return servers[0], mimeTypes[servers[0]], true
	default:
		s := g.first()(servers)
		return s, mimeTypes[s], true
	}
	return "", "", false
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
