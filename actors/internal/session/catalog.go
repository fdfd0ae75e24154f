package session

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// Bounds on one Catalog item. An item beyond them is not exposed (a
// warning says so) and its siblings are kept: one runaway description
// must not cost a client its context window, nor mcpvisor its memory.
const (
	maxItemNameBytes        = 1 << 10
	maxItemURIBytes         = 8 << 10
	maxItemDescriptionBytes = 64 << 10
	maxPromptArguments      = 100
)

// Kinds says which kinds a listing covers. Resources and resource
// templates go together: one list_changed notification covers both.
type Kinds uint8

const (
	KindTools Kinds = 1 << iota
	KindPrompts
	KindResources
	KindAll = KindTools | KindPrompts | KindResources
)

// Catalog is what one listing of a session found, each kind sorted by
// its key. A kind the listing did not cover (not in Kinds) is nil;
// Skipped are the items left out for their size.
type Catalog struct {
	Kinds     Kinds
	Tools     []messages.Tool
	Prompts   []messages.Prompt
	Resources []messages.Resource
	Templates []messages.ResourceTemplate
	Skipped   []messages.CatalogItemSkipped
}

// listCatalog lists the kinds asked for that the server advertises (tools
// are always listed, as they always were; a kind not advertised is empty),
// each bounded by listPaged, its text redacted by r (catalog_redact.go).
func listCatalog(ctx context.Context, server string, cs *mcp.ClientSession, kinds Kinds, r *redact.Redactor) (Catalog, error) {
	caps := &mcp.ServerCapabilities{}
	if r := cs.InitializeResult(); r != nil && r.Capabilities != nil {
		caps = r.Capabilities
	}
	out := Catalog{Kinds: kinds}
	var err error
	if kinds&KindTools != 0 {
		if out.Tools, err = listTools(ctx, server, cs); err != nil {
			return Catalog{}, err
		}
		out.Tools = skipLarge(&out, server, messages.KindTools, out.Tools, func(t messages.Tool) (string, string) {
			return t.Name, oversize(t.Name, "", t.Description)
		})
	}
	if kinds&KindPrompts != 0 {
		out.Prompts = []messages.Prompt{}
		if caps.Prompts != nil {
			if out.Prompts, err = listPrompts(ctx, server, cs, &out); err != nil {
				return Catalog{}, err
			}
		}
	}
	if kinds&KindResources != 0 {
		out.Resources, out.Templates = []messages.Resource{}, []messages.ResourceTemplate{}
		if caps.Resources != nil {
			if out.Resources, err = listResources(ctx, server, cs, &out); err != nil {
				return Catalog{}, err
			}
			if out.Templates, err = listTemplates(ctx, server, cs, &out); err != nil {
				return Catalog{}, err
			}
		}
	}
	return redactCatalog(out, r), nil
}

func listPrompts(ctx context.Context, server string, cs *mcp.ClientSession, c *Catalog) ([]messages.Prompt, error) {
	stated := map[string]map[string]bool{} // by prompt, the arguments whose "required" the server sent
	raw, err := listPaged(ctx, "prompts/list", "prompts", func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
		res, items, err := listPage(ctx, "prompts/list", "prompts", func(ctx context.Context) (*mcp.ListPromptsResult, error) {
			return cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		})
		if err != nil {
			return nil, "", err
		}
		for name, it := range items {
			if args := statedRequired(it); args != nil {
				stated[name] = args
			}
		}
		return res.Prompts, res.NextCursor, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]messages.Prompt, 0, len(raw))
	for _, p := range raw {
		if p == nil {
			continue
		}
		if why := promptOversize(p); why != "" {
			c.skip(server, messages.KindPrompts, p.Name, why)
			continue
		}
		out = append(out, promptOf(server, p, stated[p.Name]))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func listResources(ctx context.Context, server string, cs *mcp.ClientSession, c *Catalog) ([]messages.Resource, error) {
	raw, err := listPaged(ctx, "resources/list", "resources", func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
		res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Resources, res.NextCursor, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]messages.Resource, 0, len(raw))
	for _, r := range raw {
		if r == nil {
			continue
		}
		if why := oversize(r.Name, r.URI, r.Description); why != "" {
			c.skip(server, messages.KindResources, r.URI, why)
			continue
		}
		out = append(out, resourceOf(server, r))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out, nil
}

func listTemplates(ctx context.Context, server string, cs *mcp.ClientSession, c *Catalog) ([]messages.ResourceTemplate, error) {
	raw, err := listPaged(ctx, "resources/templates/list", "resource templates", func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
		res, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.ResourceTemplates, res.NextCursor, nil
	})
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeMethodNotFound {
		return []messages.ResourceTemplate{}, nil // resources without templates
	}
	if err != nil {
		return nil, err
	}
	out := make([]messages.ResourceTemplate, 0, len(raw))
	for _, t := range raw {
		if t == nil {
			continue
		}
		if why := oversize(t.Name, t.URITemplate, t.Description); why != "" {
			c.skip(server, messages.KindResourceTemplates, t.URITemplate, why)
			continue
		}
		out = append(out, templateOf(server, t))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URITemplate < out[j].URITemplate })
	return out, nil
}

// skip records an item left out.
func (c *Catalog) skip(server string, kind messages.CatalogKind, key, why string) {
	c.Skipped = append(c.Skipped, messages.CatalogItemSkipped{Server: server, Kind: kind, Key: redact.Bound(key), Reason: why})
}

// skipLarge drops the items check finds too large, recording each.
func skipLarge[T any](c *Catalog, server string, kind messages.CatalogKind, items []T, check func(T) (key, why string)) []T {
	out := items[:0:0]
	for _, it := range items {
		if key, why := check(it); why != "" {
			c.skip(server, kind, key, why)
			continue
		}
		out = append(out, it)
	}
	return out
}

// oversize says why an item is too large to expose, or "".
func oversize(name, uri, description string) string {
	switch {
	case len(name) > maxItemNameBytes:
		return fmt.Sprintf("name of %d bytes, more than %d", len(name), maxItemNameBytes)
	case len(uri) > maxItemURIBytes:
		return fmt.Sprintf("URI of %d bytes, more than %d", len(uri), maxItemURIBytes)
	case len(description) > maxItemDescriptionBytes:
		return fmt.Sprintf("description of %d bytes, more than %d", len(description), maxItemDescriptionBytes)
	}
	return ""
}

func promptOversize(p *mcp.Prompt) string {
	if why := oversize(p.Name, "", p.Description); why != "" {
		return why
	}
	if len(p.Arguments) > maxPromptArguments {
		return fmt.Sprintf("%d arguments, more than %d", len(p.Arguments), maxPromptArguments)
	}
	for _, a := range p.Arguments {
		if a == nil {
			continue
		}
		if why := oversize(a.Name, "", a.Description); why != "" {
			return "argument " + why
		}
	}
	return ""
}

// promptOf is p as the fleet holds it; stated names the arguments whose
// "required" the server sent (nil if the listing was not captured).
func promptOf(server string, p *mcp.Prompt, stated map[string]bool) messages.Prompt {
	out := messages.Prompt{Server: server, Name: p.Name, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		if a == nil {
			continue
		}
		out.Arguments = append(out.Arguments, messages.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description,
			Required: a.Required, RequiredStated: stated[a.Name]})
	}
	out.Hash = contentHash(out.Name, out.Title, out.Description, out.Arguments)
	return out
}

func resourceOf(server string, r *mcp.Resource) messages.Resource {
	out := messages.Resource{Server: server, URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: r.Size}
	if r.Annotations != nil {
		out.Annotations = r.Annotations
	}
	out.Hash = contentHash(out.URI, out.Name, out.Title, out.Description, out.MIMEType, out.Size, out.Annotations)
	return out
}

func templateOf(server string, t *mcp.ResourceTemplate) messages.ResourceTemplate {
	out := messages.ResourceTemplate{Server: server, URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType}
	if t.Annotations != nil {
		out.Annotations = t.Annotations
	}
	out.Hash = contentHash(out.URITemplate, out.Name, out.Title, out.Description, out.MIMEType, out.Annotations)
	return out
}
