package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callTool answers POST /api/v1/tools/call: it calls one tool by its
// prefix__tool name and returns the MCP result. Every call that reaches
// the fleet is counted in the metrics.
func (s *Server) callTool(w http.ResponseWriter, r *http.Request) {
	var req CallRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeRequestError(w, err)
		return
	}
	if req.Name == "" {
		writeError(w, http.StatusBadRequest, `name is required: send {"name": "prefix__tool", "arguments": {...}}`)
		return
	}
	args, err := callArguments(req.Arguments)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	start := s.clock.Now("httpapi", "call")
	res, err := s.fleet.CallTool(r.Context(), req.Name, args)
	s.metrics.ObserveCall(req.Name, ClassifyCall(res, err), s.clock.Since(start, "httpapi", "call"))
	if err != nil {
		writeError(w, callStatus(err), err.Error())
		return
	}
	out, err := callResult(res)
	if err != nil {
		writeError(w, http.StatusBadGateway, "tool result is not valid JSON: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// callArguments checks that raw is a JSON object (or absent, which is {})
// and passes it on unparsed, so numbers keep their precision.
func callArguments(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	if trimmed[0] != '{' {
		return nil, &requestError{http.StatusBadRequest, "arguments must be a JSON object"}
	}
	return trimmed, nil
}

// callResult turns an MCP result into its wire form.
func callResult(res *mcp.CallToolResult) (CallResult, error) {
	out := CallResult{Content: []json.RawMessage{}}
	if res == nil {
		return out, nil
	}
	out.IsError = res.IsError
	for _, c := range res.Content {
		b, err := json.Marshal(c)
		if err != nil {
			return out, err
		}
		out.Content = append(out.Content, b)
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return out, err
		}
		out.StructuredContent = b
	}
	return out, nil
}
