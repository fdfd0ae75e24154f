package httpapi

import (
	"net/http"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// status answers GET /api/v1/status with the fleet's status snapshot.
func (s *Server) status(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, normalStatus(s.fleet.Status()))
}

// tools answers GET /api/v1/tools with every ready server's exposed tools.
func (s *Server) tools(w http.ResponseWriter, _ *http.Request) {
	tools := s.fleet.Tools()
	out := ToolList{Tools: make([]ToolInfo, 0, len(tools))}
	for _, t := range tools {
		out.Tools = append(out.Tools, ToolInfo{
			Name:         actors.QualifiedName(t.Prefix, t.Name),
			Server:       t.Server,
			Prefix:       t.Prefix,
			Tool:         t.Name,
			Description:  t.Description,
			InputSchema:  t.InputSchema,
			OutputSchema: t.OutputSchema,
		})
	}
	writeJSON(w, http.StatusOK, out)
}

// normalStatus makes every array of st non-nil, so the JSON never has a
// null where clients expect a list.
func normalStatus(st messages.Status) messages.Status {
	if st.Servers == nil {
		st.Servers = []messages.ServerStatus{}
	}
	if st.ConfigErrors == nil {
		st.ConfigErrors = []messages.Diagnostic{}
	}
	for i := range st.Servers {
		if st.Servers[i].StderrTail == nil {
			st.Servers[i].StderrTail = []string{}
		}
	}
	return st
}
