package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
)

// exportTool turns one fleet tool into the gateway's tool: named
// exposed, description passed through, schemas re-encoded as JSON so
// the gateway shares no maps with the fleet. err means the tool cannot be
// exposed (Server.AddTool would panic); outErr that its output schema was
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
		InputSchema: in,
		Annotations: annotations(t.Annotations),
	}
	if t.OutputSchema != nil {
		out, err := outputSchema(t.OutputSchema)
		if err != nil {
			outErr = err
		} else {
			tool.OutputSchema = out
		}
	}
	return tool, outErr, nil
}

// annotations re-encodes a tool's hints for the gateway's clients; hints
// that do not decode are dropped (they are advisory).
func annotations(a any) *mcp.ToolAnnotations {
	if a == nil {
		return nil
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

// inputSchema checks what Server.AddTool insists on: a JSON object whose
// type is "object".
func inputSchema(s any) (json.RawMessage, error) {
	if s == nil {
		return nil, errors.New("no input schema")
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errors.New("input schema is not a JSON object")
	}
	if typ := m["type"]; typ != "object" {
		return nil, fmt.Errorf(`input schema has type %v, want "object"`, typ)
	}
	return raw, nil
}

// outputSchema accepts any JSON object (a schema of any type; protocol
// 2026-07-28 allows non-object output).
func outputSchema(s any) (json.RawMessage, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errors.New("output schema is not a JSON object")
	}
	return raw, nil
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
