package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
)

// exportTool turns one fleet tool into the gateway's tool, named
// exposed, description passed through. Schemas that are already JSON
// objects (map[string]any, as the fleet decodes them) are shared with the
// fleet, which never changes a listed tool; others are re-encoded. err
// means the tool cannot be exposed (a go-sdk client would refuse it, or
// the SDK's own Server.AddTool would); outErr that its output schema was
// dropped and the tool is exposed without one.
func exportTool(exposed string, t messages.Tool) (tool *mcp.Tool, outErr, err error) {
	if t.Name == "" {
		return nil, nil, errors.New("tool has no name")
	}
	in, err := inputSchema(t.InputSchema)
	if err != nil {
		return nil, nil, err
	}
	tool = &mcp.Tool{
		Name:        exposed,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: asSent(t.InputSchema, in),
		Annotations: annotations(t.Annotations),
	}
	if t.OutputSchema != nil {
		out, err := outputSchema(t.OutputSchema)
		if err != nil {
			outErr = err
		} else {
			tool.OutputSchema = asSent(t.OutputSchema, out)
		}
	}
	return tool, outErr, nil
}

// annotations passes a tool's hints on for the gateway's clients,
// re-encoding those that are not the SDK's type; hints that do not decode
// are dropped (they are advisory).
func annotations(a any) *mcp.ToolAnnotations {
	switch a := a.(type) {
	case nil:
		return nil
	case *mcp.ToolAnnotations:
		return a
	}
	raw, err := json.Marshal(a)
	if err != nil {
		return nil
	}
	var out mcp.ToolAnnotations
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return &out
}

// asSent is a checked schema as the client gets it: the server's bytes
// if the fleet kept them (json.RawMessage: its keys in the server's
// order, which is the order a client shows the arguments in), else the
// decoded object.
func asSent(s any, checked map[string]any) any {
	if raw, ok := s.(json.RawMessage); ok {
		return raw
	}
	return checked
}

// asObject returns s as a JSON object: itself if it is one already,
// else decoded from its JSON encoding.
func asObject(s any) (map[string]any, error) {
	if m, ok := s.(map[string]any); ok {
		return m, nil
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

// inputSchema checks what the MCP spec and the go-sdk insist on: a JSON
// object whose type is "object", with valid x-mcp-header annotations.
func inputSchema(s any) (map[string]any, error) {
	if s == nil {
		return nil, errors.New("no input schema")
	}
	m, err := asObject(s)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if typ := m["type"]; typ != "object" {
		return nil, fmt.Errorf(`input schema has type %v, want "object"`, typ)
	}
	if err := checkHeaders(m, "", map[string]bool{}); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return m, nil
}

// checkHeaders checks the x-mcp-header annotations of a schema's
// properties, at any depth: each on a string, integer or boolean
// property, naming a valid HTTP header, no two the same (ignoring case).
// A go-sdk client leaves a tool that breaks these out of its list.
func checkHeaders(schema map[string]any, path string, seen map[string]bool) error {
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		prop, ok := p.(map[string]any)
		if !ok {
			continue
		}
		at := name
		if path != "" {
			at = path + "." + name
		}
		if h, ok := prop["x-mcp-header"]; ok {
			switch prop["type"] {
			case "string", "integer", "boolean":
			default:
				return fmt.Errorf("property %q: x-mcp-header on a property of type %v, want string, integer or boolean", at, prop["type"])
			}
			header, _ := h.(string)
			if !validHeaderName(header) {
				return fmt.Errorf("property %q: x-mcp-header %v is not an HTTP header name", at, h)
			}
			if seen[strings.ToLower(header)] {
				return fmt.Errorf("property %q: x-mcp-header %q used twice", at, header)
			}
			seen[strings.ToLower(header)] = true
		}
		if err := checkHeaders(prop, at, seen); err != nil {
			return err
		}
	}
	return nil
}

// validHeaderName reports whether s is an HTTP field name (RFC 9110's
// token: one or more tchar).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// outputSchema accepts any JSON object (a schema of any type; protocol
// 2026-07-28 allows non-object output).
func outputSchema(s any) (map[string]any, error) {
	m, err := asObject(s)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	return m, nil
}

// fingerprint covers everything the gateway exposes of a tool, so an
// unchanged tool is not re-added (which would announce a change). JSON
// encoding sorts map keys: equal schemas give equal fingerprints.
func fingerprint(t messages.Tool) string {
	h := sha256.New()
	v := []any{t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations}
	if err := json.NewEncoder(h).Encode(v); err != nil {
		// An unencodable schema (exportTool skips or drops it): fall
		// back to Go's rendering, which still tells versions apart.
		h.Reset()
		fmt.Fprintf(h, "%#v", v)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
