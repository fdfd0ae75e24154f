package actors

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The catalog beyond tools, as the Supervisor exposes it. Reads come from
// the fleet view's snapshot (never blocking, copies); gets, reads,
// completions and subscriptions go to the owning server's session and fail
// with the same error classes as CallTool: ErrClosed, ErrUnknownServer,
// ErrUnknownPrompt / ErrUnknownResource, ErrNotReady, ErrUpstream,
// ErrCallTimeout, ErrCanceled. Each runs under the server's call timeout.

// Prompts returns the prompts of every ready server, sorted by server and
// name. Expose each as QualifiedName(p.Server, p.Name).
func (s *Supervisor) Prompts() []messages.Prompt {
	return nil
}

// GetPrompt gets a prompt by its qualified name (QualifiedName(server,
// prompt)) with its arguments.
func (s *Supervisor) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	return nil, ErrNotReady
}

// Resources returns the resources of every ready server, sorted by server
// and URI. A URI two servers list is owned by the first in config order;
// the other's entry is left out (and reported as a CatalogConflict).
func (s *Supervisor) Resources() []messages.Resource {
	return nil
}

// ResourceTemplates returns the resource templates of every ready server,
// sorted by server and URI template; conflicts as for Resources.
func (s *Supervisor) ResourceTemplates() []messages.ResourceTemplate {
	return nil
}

// ResourceServer names the server a URI is routed to: the owner of a
// listed resource of that URI, else of the first template (in config
// order) that matches it.
func (s *Supervisor) ResourceServer(uri string) (server string, ok bool) {
	return "", false
}

// ReadResource reads a resource by URI from the server that owns it.
func (s *Supervisor) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	return nil, ErrNotReady
}

// Complete asks for completions of one argument. ref is a ref/prompt with
// the prompt's qualified name, or a ref/resource with a URI template (or
// URI) as exposed; it is routed to its server and rewritten to the
// server's own name for it. Errors as for GetPrompt, plus ErrBadReference.
func (s *Supervisor) Complete(ctx context.Context, ref *mcp.CompleteReference, argument mcp.CompleteParamsArgument, cctx *mcp.CompleteContext) (*mcp.CompleteResult, error) {
	return nil, ErrNotReady
}

// SubscribeResource subscribes to updates of a resource: the owning
// server's notifications/resources/updated for uri are published as
// messages.ResourceUpdated events. Subscriptions are counted per URI:
// mcpvisor subscribes upstream once, on the first, and again whenever the
// owning server's session is replaced or restarts, until the last
// UnsubscribeResource. It returns once the upstream subscription is
// acknowledged, or with an error (and no subscription counted).
func (s *Supervisor) SubscribeResource(ctx context.Context, uri string) error {
	return ErrNotReady
}

// UnsubscribeResource drops one subscription to uri; the upstream one ends
// with the last. Unsubscribing a URI not subscribed to is a no-op.
func (s *Supervisor) UnsubscribeResource(uri string) {
}
