package session

import (
	"encoding/json"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// A catalog is server text shown everywhere: in the HTTP API, in events,
// to the gateway's clients and in the catalog cache. A server can put a
// secret it was given (an env value, a header, a value of mcpvisor's
// environment it inherited) into a tool's description, a schema or a
// resource URI; so every text of a listed catalog goes through the
// server's catalog redactor (Deps.CatalogRedactor) before it leaves the
// session, and the item's hash is taken again over what is left. An item
// that holds no secret is kept as listed. The names of tools, prompts and
// prompt arguments, resource URIs and URI templates are kept: they are how
// an item is called or read (a resource's URI may carry the server's API
// key as a query parameter, and reading it must still work), so they are
// not redacted here. A resource's or a template's name is not how it is
// read (its URI is): it is display text, redacted like its title.

// redactCatalog is cat with every secret r finds replaced by redact.Mark.
func redactCatalog(cat Catalog, r *redact.Redactor) Catalog {
	if r == nil {
		return cat
	}
	for i, t := range cat.Tools {
		if holdsSecret(r, t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations) {
			cat.Tools[i] = redactTool(r, t)
		}
	}
	for i, p := range cat.Prompts {
		if holdsSecret(r, p.Title, p.Description, p.Arguments) {
			cat.Prompts[i] = redactPrompt(r, p)
		}
	}
	for i, res := range cat.Resources {
		if holdsSecret(r, res.Name, res.Title, res.Description, res.MIMEType, res.Annotations) {
			cat.Resources[i] = redactResource(r, res)
		}
	}
	for i, tp := range cat.Templates {
		if holdsSecret(r, tp.Name, tp.Title, tp.Description, tp.MIMEType, tp.Annotations) {
			cat.Templates[i] = redactTemplate(r, tp)
		}
	}
	return cat
}

func redactTool(r *redact.Redactor, t messages.Tool) messages.Tool {
	t.Title, t.Description = r.RedactAll(t.Title), r.RedactAll(t.Description)
	t.InputSchema, t.OutputSchema, t.Annotations = redactJSON(r, t.InputSchema), redactJSON(r, t.OutputSchema), redactJSON(r, t.Annotations)
	if t.InputSchema == nil {
		t.InputSchema = map[string]any{"type": "object"} // a tool must have one
	}
	t.Hash = contentHash(t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations)
	return t
}

func redactPrompt(r *redact.Redactor, p messages.Prompt) messages.Prompt {
	p.Title, p.Description = r.RedactAll(p.Title), r.RedactAll(p.Description)
	args := make([]messages.PromptArgument, len(p.Arguments))
	for i, a := range p.Arguments {
		args[i] = messages.PromptArgument{Name: a.Name, Title: r.RedactAll(a.Title), Description: r.RedactAll(a.Description), Required: a.Required, RequiredStated: a.RequiredStated}
	}
	if p.Arguments != nil {
		p.Arguments = args
	}
	p.Hash = contentHash(p.Name, p.Title, p.Description, p.Arguments)
	return p
}

func redactResource(r *redact.Redactor, res messages.Resource) messages.Resource {
	res.Name, res.Title = r.RedactAll(res.Name), r.RedactAll(res.Title)
	res.Description, res.MIMEType, res.Annotations = r.RedactAll(res.Description), r.RedactAll(res.MIMEType), redactJSON(r, res.Annotations)
	res.Hash = contentHash(res.URI, res.Name, res.Title, res.Description, res.MIMEType, res.Size, res.Annotations)
	return res
}

func redactTemplate(r *redact.Redactor, tp messages.ResourceTemplate) messages.ResourceTemplate {
	tp.Name, tp.Title = r.RedactAll(tp.Name), r.RedactAll(tp.Title)
	tp.Description, tp.MIMEType, tp.Annotations = r.RedactAll(tp.Description), r.RedactAll(tp.MIMEType), redactJSON(r, tp.Annotations)
	tp.Hash = contentHash(tp.URITemplate, tp.Name, tp.Title, tp.Description, tp.MIMEType, tp.Annotations)
	return tp
}

// holdsSecret reports whether any of fields (strings, or values as their
// JSON) holds a secret of r.
func holdsSecret(r *redact.Redactor, fields ...any) bool {
	for _, f := range fields {
		if s, ok := f.(string); ok {
			if r.Contains(s) {
				return true
			}
			continue
		}
		if b, err := json.Marshal(f); err == nil && r.Contains(string(b)) {
			return true
		}
	}
	return false
}

// redactJSON is v (a schema, annotations) with its secrets replaced: as
// JSON text, read back. If what is left is not JSON (a secret that
// spanned its syntax), nothing of v is kept. A schema the server's bytes
// were kept of (json.RawMessage, package verbatim) stays bytes, redacted
// the same way: its key order survives, its secrets do not.
func redactJSON(r *redact.Redactor, v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || !r.Contains(string(b)) {
		return v
	}
	redacted := []byte(r.RedactAll(string(b)))
	if _, raw := v.(json.RawMessage); raw {
		if !json.Valid(redacted) {
			return nil
		}
		return json.RawMessage(redacted)
	}
	var out any
	if json.Unmarshal(redacted, &out) != nil {
		return nil
	}
	return out
}
