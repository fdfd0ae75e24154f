package httpapi

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Fleet is what the API serves: the read side, tool calls, prompt gets,
// resource reads, resync and the event journal of one supervisor. *actors.Supervisor provides all of it
// through FleetOf; tests use httpapitest.Fleet.
type Fleet interface {
	Status() messages.Status
	Tools() []messages.Tool
	CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error)
	Prompts() []messages.Prompt
	GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error)
	Resources() []messages.Resource
	ResourceTemplates() []messages.ResourceTemplate
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
	Resync(ctx context.Context, dryRun bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error)
	EventsSince(seq uint64) (events []*messages.Envelope, truncated bool)
	// Follow delivers every event published from now on; it must never
	// block the publisher (drop and count instead).
	Follow(buffer int) Feed
}

// Feed is a live event subscription.
type Feed interface {
	// Events is closed by Close.
	Events() <-chan *messages.Envelope
	// Dropped counts the events not delivered because the buffer was full.
	Dropped() uint64
	// Close ends the subscription; it is idempotent.
	Close()
}

// FleetOf adapts a supervisor to Fleet: every method is the supervisor's
// own, and Follow is Subscribe.
func FleetOf(sup *actors.Supervisor) Fleet { return supervisorFleet{sup} }

type supervisorFleet struct{ *actors.Supervisor }

// CallTool, GetPrompt and ReadResource are the supervisor's, without call
// options (the API relays no progress).
func (f supervisorFleet) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	return f.Supervisor.CallTool(ctx, name, args)
}

func (f supervisorFleet) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	return f.Supervisor.GetPrompt(ctx, name, args)
}

func (f supervisorFleet) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	return f.Supervisor.ReadResource(ctx, uri)
}

func (f supervisorFleet) Follow(buffer int) Feed { return subscriptionFeed{f.Subscribe(buffer)} }

type subscriptionFeed struct{ *actors.Subscription }

func (f subscriptionFeed) Events() <-chan *messages.Envelope { return f.C }
