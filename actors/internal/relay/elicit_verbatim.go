package relay

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
)

// An elicitation goes each way as its sender wrote it. The go-sdk decodes
// the server's requestedSchema into a map[string]any, whose keys it would
// write back sorted, though their order is the order of the form's
// fields a person sees; and the go-sdk server that asks the gateway's
// client (ServerSession.Elicit) fills the schema's defaults into the
// client's answer, so the server would read values nobody gave. So the
// session's transport keeps the raw params of each elicitation (package
// verbatim, Requests), whose requestedSchema is sent on as raw JSON, and
// the relay captures the client's answer (verbatim.Capture: the gateway
// records it) and returns it to the server byte for byte. What was not
// captured falls back to the typed values.

// Requests is where the session's transport keeps the raw params of the
// server's elicitations (verbatim.Transport).
func (r *Relay) Requests() *verbatim.Recent { return &r.requests }

// verbatimSchema is p (the server's params, attributed: attributed) with
// the requestedSchema as the server sent it, if its bytes were kept.
func (r *Relay) verbatimSchema(attributed, p *mcp.ElicitParams) *mcp.ElicitParams {
	raw := verbatim.Take(&r.requests, "elicitation/create", p)
	schema := verbatim.Field(raw, "requestedSchema")
	if schema == nil || attributed.RequestedSchema == nil {
		return attributed
	}
	attributed.RequestedSchema = schema
	return attributed
}

// rawElicitResult is an answer the server gets as the client sent it.
type rawElicitResult struct {
	*mcp.ElicitResult
	raw json.RawMessage
}

func (r *rawElicitResult) MarshalJSON() ([]byte, error) { return r.raw, nil }
