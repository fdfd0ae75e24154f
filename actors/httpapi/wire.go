package httpapi

import (
	"encoding/json"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The wire types of API version 1. GET /api/v1/status answers a
// messages.Status as it is; everything else is here. docs/api.md shows
// each with an example.

// ErrorBody is every error response: {"error": "..."}.
type ErrorBody struct {
	Error string `json:"error"`
}

// ToolList answers GET /api/v1/tools.
type ToolList struct {
	Tools []ToolInfo `json:"tools"`
}

// ToolInfo is one exposed tool. Name is the fleet-wide prefix__tool name
// that POST /api/v1/tools/call takes.
type ToolInfo struct {
	Name         string `json:"name"`
	Server       string `json:"server"`
	Prefix       string `json:"prefix"`
	Tool         string `json:"tool"`
	Description  string `json:"description"`
	InputSchema  any    `json:"inputSchema"`
	OutputSchema any    `json:"outputSchema,omitempty"`
}

// CallRequest is the body of POST /api/v1/tools/call. Arguments must be a
// JSON object when present.
type CallRequest struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// CallResult is the MCP tool result. A result with IsError set is a
// successful call of a tool that reported failure (status 200).
type CallResult struct {
	// Content holds MCP content items ({"type": "text", "text": ...} and
	// so on), never null.
	Content           []json.RawMessage `json:"content"`
	IsError           bool              `json:"isError"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
}

// PromptList answers GET /api/v1/prompts.
type PromptList struct {
	Prompts []PromptInfo `json:"prompts"`
}

// PromptInfo is one exposed prompt. Name is the fleet-wide prefix__prompt
// name that POST /api/v1/prompts/get takes; Prefix is the server's
// exposed prefix.
type PromptInfo struct {
	Name        string           `json:"name"`
	Server      string           `json:"server"`
	Prefix      string           `json:"prefix"`
	Prompt      string           `json:"prompt"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description"`
	Arguments   []PromptArgument `json:"arguments"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument = messages.PromptArgument

// PromptGetRequest is the body of POST /api/v1/prompts/get.
type PromptGetRequest struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
}

// PromptResult answers POST /api/v1/prompts/get: the MCP prompt's
// messages ({"role": ..., "content": {"type": "text", ...}}), never null.
type PromptResult struct {
	Description string            `json:"description,omitempty"`
	Messages    []json.RawMessage `json:"messages"`
}

// Resource is one exposed resource, as the fleet lists it.
type Resource = messages.Resource

// ResourceTemplate is one exposed resource template.
type ResourceTemplate = messages.ResourceTemplate

// ResourceList answers GET /api/v1/resources.
type ResourceList struct {
	Resources []Resource `json:"resources"`
}

// TemplateList answers GET /api/v1/resources/templates.
type TemplateList struct {
	Templates []ResourceTemplate `json:"resourceTemplates"`
}

// ReadRequest is the body of POST /api/v1/resources/read.
type ReadRequest struct {
	URI string `json:"uri"`
}

// ReadResult answers POST /api/v1/resources/read: the MCP resource
// contents ({"uri": ..., "mimeType": ..., "text": ... or "blob":
// base64}), never null.
type ReadResult struct {
	Contents []json.RawMessage `json:"contents"`
}

// ResyncRequest is the optional body of POST /api/v1/resync.
type ResyncRequest struct {
	DryRun bool `json:"dryRun"`
}

// ResyncResult answers POST /api/v1/resync.
type ResyncResult struct {
	ID         string              `json:"id"`
	Generation uint64              `json:"generation"`
	DryRun     bool                `json:"dryRun"`
	Plan       []messages.PlanStep `json:"plan"`
	// Outcomes is where each server the resync started or retried ended
	// up; empty for a dry run or when the wait ran out.
	Outcomes []messages.ServerOutcome `json:"outcomes"`
	// Complete reports that every server the resync touched has settled
	// (always true for a dry run).
	Complete bool `json:"complete"`
	// Note says why Complete is false.
	Note string `json:"note,omitempty"`
	// Status is the fleet after the resync; absent for a dry run.
	Status *messages.Status `json:"status,omitempty"`
}

// StreamEvent is the data of one event on GET /api/v1/events: the journal
// envelope with the event's type.
type StreamEvent struct {
	Seq   uint64          `json:"seq"`
	Time  time.Time       `json:"time"`
	Type  string          `json:"type"`
	Event json.RawMessage `json:"event"`
}

// StreamTruncated is the data of a "stream.truncated" event: the stream
// could not resume right after Since (the events were no longer kept, or
// the daemon restarted and its sequence numbers began again) and resumes
// at Next.
type StreamTruncated struct {
	Since  uint64 `json:"since"`
	Next   uint64 `json:"next"`
	Reason string `json:"reason"`
}

// EventTruncated is the SSE event type of StreamTruncated.
const EventTruncated = "stream.truncated"

// NewEvent returns an empty event of the given EventType, for decoding a
// StreamEvent's Event, or false for a type this version does not know.
func NewEvent(eventType string) (messages.Event, bool) {
	switch eventType {
	case (*messages.ConfigLoaded)(nil).EventType():
		return &messages.ConfigLoaded{}, true
	case (*messages.ServerStateChanged)(nil).EventType():
		return &messages.ServerStateChanged{}, true
	case (*messages.ToolsChanged)(nil).EventType():
		return &messages.ToolsChanged{}, true
	case (*messages.PlanComputed)(nil).EventType():
		return &messages.PlanComputed{}, true
	case (*messages.PlanApplied)(nil).EventType():
		return &messages.PlanApplied{}, true
	case (*messages.ResyncPlanned)(nil).EventType():
		return &messages.ResyncPlanned{}, true
	case (*messages.ResyncCompleted)(nil).EventType():
		return &messages.ResyncCompleted{}, true
	case (*messages.WatcherDegraded)(nil).EventType():
		return &messages.WatcherDegraded{}, true
	case (*messages.PromptsChanged)(nil).EventType():
		return &messages.PromptsChanged{}, true
	case (*messages.ResourcesChanged)(nil).EventType():
		return &messages.ResourcesChanged{}, true
	case (*messages.ResourceTemplatesChanged)(nil).EventType():
		return &messages.ResourceTemplatesChanged{}, true
	case (*messages.ResourceUpdated)(nil).EventType():
		return &messages.ResourceUpdated{}, true
	case (*messages.CatalogConflict)(nil).EventType():
		return &messages.CatalogConflict{}, true
	case (*messages.CatalogItemSkipped)(nil).EventType():
		return &messages.CatalogItemSkipped{}, true
	case (*messages.SupervisorFailed)(nil).EventType():
		return &messages.SupervisorFailed{}, true
	}
	return nil, false
}

// DecodeEvent turns a StreamEvent back into a journal envelope. An event of
// an unknown type is an error; callers may still show e.Type and e.Event.
func DecodeEvent(e StreamEvent) (*messages.Envelope, error) {
	ev, ok := NewEvent(e.Type)
	if !ok {
		return nil, &UnknownEventError{Type: e.Type}
	}
	if err := json.Unmarshal(e.Event, ev); err != nil {
		return nil, err
	}
	return &messages.Envelope{Seq: e.Seq, Time: e.Time, Event: ev}, nil
}

// UnknownEventError reports an event type DecodeEvent does not know (a
// newer daemon).
type UnknownEventError struct{ Type string }

func (e *UnknownEventError) Error() string { return "unknown event type " + e.Type }
