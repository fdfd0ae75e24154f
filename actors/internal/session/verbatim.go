package session

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
)

// A listing keeps what the go-sdk's typed decoding loses (package
// verbatim): a tool's schemas as the server sent them (their key order
// is the order a client shows the arguments in), and whether a prompt
// argument's "required" was sent at all. Each page is captured as it is
// listed; an item the capture does not cover (a page the go-sdk served
// from its cache) keeps its typed value.

// wrapTransport is the session's transport as requests see it: ordered
// by the relay (order.go there), its results captured (package verbatim).
func (s *sessionActor) wrapTransport(t mcp.Transport) mcp.Transport {
	return verbatim.Transport(s.relay.OrderedTransport(t), s.relay.Requests())
}

// rawItems are the items of one page's raw result under key ("tools",
// "prompts"), by name; a name listed twice is left out (which of the two
// the typed value is cannot be told).
func rawItems(page json.RawMessage, key string) map[string]json.RawMessage {
	if page == nil {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(verbatim.Field(page, key), &items) != nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(items))
	twice := map[string]bool{}
	for _, it := range items {
		var named struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(it, &named) != nil {
			continue
		}
		if _, seen := out[named.Name]; seen {
			twice[named.Name] = true
		}
		out[named.Name] = it
	}
	for name := range twice {
		delete(out, name)
	}
	return out
}

// listPage runs one page's typed call under a capture and returns its
// raw items under key, by name (nil if the page was not captured).
func listPage[R any](ctx context.Context, method, key string, call func(context.Context) (R, error)) (R, map[string]json.RawMessage, error) {
	ctx, slot := verbatim.Capture(ctx)
	res, err := call(ctx)
	if err != nil {
		return res, nil, err
	}
	return res, rawItems(slot.Take(method), key), nil
}

// rawSchemas puts a tool's schemas as the server sent them (raw, its
// item in the page) in place of their decoded maps.
func rawSchemas(t *mcp.Tool, raw json.RawMessage) *mcp.Tool {
	if raw == nil {
		return t
	}
	var schemas struct {
		In  json.RawMessage `json:"inputSchema"`
		Out json.RawMessage `json:"outputSchema"`
	}
	if json.Unmarshal(raw, &schemas) != nil {
		return t
	}
	cp := *t
	if isObject(schemas.In) && t.InputSchema != nil {
		cp.InputSchema = schemas.In
	}
	if isObject(schemas.Out) && t.OutputSchema != nil {
		cp.OutputSchema = schemas.Out
	}
	return &cp
}

// statedRequired are the names of a prompt's arguments whose "required"
// the server sent (raw is its item in the page).
func statedRequired(raw json.RawMessage) map[string]bool {
	if raw == nil {
		return nil
	}
	var p struct {
		Arguments []struct {
			Name     string `json:"name"`
			Required *bool  `json:"required"`
		} `json:"arguments"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	var out map[string]bool
	for _, a := range p.Arguments {
		if a.Required != nil {
			if out == nil {
				out = map[string]bool{}
			}
			out[a.Name] = true
		}
	}
	return out
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
