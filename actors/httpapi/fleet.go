package httpapi

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Fleet is what the API serves: the read side, tool calls, prompt gets,
// resource reads, resync, the event feed and the health of one
// supervisor. An *actors.Supervisor is one (mounting the API on it is
// New(Options{Fleet: sup, Token: ...})); tests use httpapitest.Fleet.
type Fleet interface {
	Status() messages.Status
	Tools() []messages.Tool
	CallTool(ctx context.Context, name string, args any, opts ...actors.CallOption) (*mcp.CallToolResult, error)
	Prompts() []messages.Prompt
	GetPrompt(ctx context.Context, name string, args map[string]string, opts ...actors.CallOption) (*mcp.GetPromptResult, error)
	Resources() []messages.Resource
	ResourceTemplates() []messages.ResourceTemplate
	ReadResource(ctx context.Context, uri string, opts ...actors.CallOption) (*mcp.ReadResourceResult, error)
	Resync(ctx context.Context, dryRun bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error)
	// Follow is actors.Supervisor.Follow: the events after since
	// (journal.Live: from now on), then live ones, without gap or
	// duplicate.
	Follow(since uint64, buffer int) *journal.Feed
	// Err is actors.Supervisor.Err: nil while the fleet is supervised;
	// /healthz answers 503 with it otherwise.
	Err() error
}
