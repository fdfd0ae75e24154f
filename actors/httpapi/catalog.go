package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/mcpvisor/mcpvisor/actors"
)

// The catalog beyond tools: prompts, resources and resource templates,
// listed from the fleet's snapshot; prompts/get and resources/read go to
// the owning server, with the errors mapped as for tool calls.

// prompts answers GET /api/v1/prompts with every ready server's prompts.
func (s *Server) prompts(w http.ResponseWriter, _ *http.Request) {
	prompts := s.fleet.Prompts()
	out := PromptList{Prompts: make([]PromptInfo, 0, len(prompts))}
	for _, p := range prompts {
		info := PromptInfo{
			Name: actors.QualifiedName(p.Prefix, p.Name), Server: p.Server, Prefix: p.Prefix, Prompt: p.Name,
			Title: p.Title, Description: p.Description, Arguments: p.Arguments,
		}
		if info.Arguments == nil {
			info.Arguments = []PromptArgument{}
		}
		out.Prompts = append(out.Prompts, info)
	}
	writeJSON(w, http.StatusOK, out)
}

// getPrompt answers POST /api/v1/prompts/get with the MCP result.
func (s *Server) getPrompt(w http.ResponseWriter, r *http.Request) {
	var req PromptGetRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeRequestError(w, err)
		return
	}
	if req.Name == "" {
		writeError(w, http.StatusBadRequest, `name is required: send {"name": "prefix__prompt", "arguments": {"key": "value"}}`)
		return
	}
	res, err := s.fleet.GetPrompt(r.Context(), req.Name, req.Arguments)
	if err != nil {
		writeError(w, callStatus(err), err.Error())
		return
	}
	out := PromptResult{Description: res.Description, Messages: []json.RawMessage{}}
	for _, m := range res.Messages {
		if !appendJSON(w, &out.Messages, m) {
			return
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// resources answers GET /api/v1/resources with every ready server's
// resources (each URI once: its owner's).
func (s *Server) resources(w http.ResponseWriter, _ *http.Request) {
	out := ResourceList{Resources: s.fleet.Resources()}
	if out.Resources == nil {
		out.Resources = []Resource{}
	}
	writeJSON(w, http.StatusOK, out)
}

// resourceTemplates answers GET /api/v1/resources/templates.
func (s *Server) resourceTemplates(w http.ResponseWriter, _ *http.Request) {
	out := TemplateList{Templates: s.fleet.ResourceTemplates()}
	if out.Templates == nil {
		out.Templates = []ResourceTemplate{}
	}
	writeJSON(w, http.StatusOK, out)
}

// readResource answers POST /api/v1/resources/read with the MCP result.
func (s *Server) readResource(w http.ResponseWriter, r *http.Request) {
	var req ReadRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeRequestError(w, err)
		return
	}
	if req.URI == "" {
		writeError(w, http.StatusBadRequest, `uri is required: send {"uri": "scheme://..."}`)
		return
	}
	res, err := s.fleet.ReadResource(r.Context(), req.URI)
	if err != nil {
		writeError(w, callStatus(err), err.Error())
		return
	}
	out := ReadResult{Contents: []json.RawMessage{}}
	for _, c := range res.Contents {
		if !appendJSON(w, &out.Contents, c) {
			return
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// appendJSON appends v's JSON to *list, or answers 502 and reports false.
func appendJSON(w http.ResponseWriter, list *[]json.RawMessage, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusBadGateway, "result is not valid JSON: "+err.Error())
		return false
	}
	*list = append(*list, b)
	return true
}
