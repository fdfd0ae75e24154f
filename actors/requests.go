package actors

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/fleet"
	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Requests, and the catalog they are made against. Reads come from the
// fleet view's snapshot (never blocking, copies); calls, gets, reads and
// completions run on the caller's goroutine, on the owning server's
// session (a lazy server is started for them and held until they end),
// and fail with the same error classes: Err() once the Supervisor has
// ended (ErrClosed after Close), ErrBadToolName, ErrUnknownServer,
// ErrUnknownTool / ErrUnknownPrompt / ErrUnknownResource, ErrNotReady,
// ErrUpstream, ErrCallTimeout, ErrCanceled. Each runs under the server's
// call timeout.

// CallTool calls a tool by its exposed name, QualifiedName(prefix, tool).
// A result with IsError set is a successful call. Errors wrap
// ErrBadToolName, ErrUnknownServer, ErrUnknownTool, ErrNotReady,
// ErrUpstream, ErrCallTimeout or ErrCanceled, or are Err (ErrClosed,
// ErrFailed) once the Supervisor has ended. Options ask for progress
// (WithProgress) or set the call's log level (WithLogLevel); WithCaller
// on ctx says on whose behalf it is made.
func (s *Supervisor) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*mcp.CallToolResult, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	rt, tool, err := s.tree.Snapshot().RouteTool(name)
	if err != nil {
		return nil, err
	}
	res, err := s.request(ctx, rt, func(ctx context.Context, cs *mcp.ClientSession) (any, error) {
		p := &mcp.CallToolParams{Name: tool, Arguments: args}
		relay.Params(ctx, cs, p)
		return cs.CallTool(ctx, p)
	}, opts...)
	if err != nil {
		return nil, err
	}
	out, _ := res.(*mcp.CallToolResult)
	return out, nil
}

// Prompts returns the prompts of every ready server, sorted by server and
// name (and the cached ones, as Tools). Expose each as QualifiedName(p.Prefix, p.Name).
func (s *Supervisor) Prompts() []messages.Prompt {
	return s.tree.Snapshot().Prompts()
}

// GetPrompt gets a prompt by its exposed name (QualifiedName(prefix,
// prompt)) with its arguments. Options as for CallTool.
func (s *Supervisor) GetPrompt(ctx context.Context, name string, args map[string]string, opts ...CallOption) (*mcp.GetPromptResult, error) {
	row, prompt, err := s.promptRow(name)
	if err != nil {
		return nil, err
	}
	res, err := s.request(ctx, row, func(ctx context.Context, cs *mcp.ClientSession) (any, error) {
		p := &mcp.GetPromptParams{Name: prompt, Arguments: args}
		relay.Params(ctx, cs, p)
		return cs.GetPrompt(ctx, p)
	}, opts...)
	if err != nil {
		return nil, err
	}
	return res.(*mcp.GetPromptResult), nil
}

// promptRow finds the server that exposes a prompt by its exposed name,
// and the server's own name for it.
func (s *Supervisor) promptRow(name string) (*fleet.Row, string, error) {
	if err := s.Err(); err != nil {
		return nil, "", err
	}
	return s.tree.Snapshot().RoutePrompt(name)
}

// Resources returns the resources of every ready server, sorted by server
// and URI (and the cached ones, as Tools, which no read reaches until
// their server is ready). A URI two servers list is owned by the first in config order;
// the other's entry is left out (and reported as a CatalogConflict).
func (s *Supervisor) Resources() []messages.Resource {
	return s.tree.Snapshot().Resources()
}

// ResourceTemplates returns the resource templates of every ready server,
// sorted by server and URI template; conflicts and cached ones as for
// Resources.
func (s *Supervisor) ResourceTemplates() []messages.ResourceTemplate {
	return s.tree.Snapshot().Templates()
}

// ResourceServer names the server a URI is routed to: the first in config
// order that lists a resource of that URI, else the first whose template
// matches it.
func (s *Supervisor) ResourceServer(uri string) (server string, ok bool) {
	row, ok := s.tree.Snapshot().ResourceOwner(uri)
	if !ok {
		return "", false
	}
	return row.Status.Name, true
}

// ReadResource reads a resource by URI from the server that owns it.
// Options as for CallTool.
func (s *Supervisor) ReadResource(ctx context.Context, uri string, opts ...CallOption) (*mcp.ReadResourceResult, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	row, err := s.tree.Snapshot().RouteResource(uri)
	if err != nil {
		return nil, err
	}
	res, err := s.request(ctx, row, func(ctx context.Context, cs *mcp.ClientSession) (any, error) {
		p := &mcp.ReadResourceParams{URI: uri}
		relay.Params(ctx, cs, p)
		return cs.ReadResource(ctx, p)
	}, opts...)
	if err != nil {
		return nil, err
	}
	return res.(*mcp.ReadResourceResult), nil
}

// Complete asks for completions of one argument. ref is a ref/prompt with
// the prompt's qualified name, or a ref/resource with a URI template (or
// URI) as exposed; it is routed to its server and rewritten to the
// server's own name for it. Errors as for GetPrompt, plus ErrBadReference.
func (s *Supervisor) Complete(ctx context.Context, ref *mcp.CompleteReference, argument mcp.CompleteParamsArgument, cctx *mcp.CompleteContext) (*mcp.CompleteResult, error) {
	if ref == nil {
		return nil, fmt.Errorf("%w: none given", ErrBadReference)
	}
	var row *fleet.Row
	up := *ref
	switch ref.Type {
	case "ref/prompt":
		var prompt string
		var err error
		if row, prompt, err = s.promptRow(ref.Name); err != nil {
			if errors.Is(err, ErrBadToolName) {
				return nil, fmt.Errorf("%w: %w", ErrBadReference, err)
			}
			return nil, err
		}
		up.Name = prompt
	case "ref/resource":
		if err := s.Err(); err != nil {
			return nil, err
		}
		var ok bool
		if row, ok = s.tree.Snapshot().TemplateOwner(ref.URI); !ok {
			return nil, fmt.Errorf("%w: %q", ErrUnknownResource, ref.URI)
		}
	default:
		return nil, fmt.Errorf("%w: type %q", ErrBadReference, ref.Type)
	}
	res, err := s.request(ctx, row, func(ctx context.Context, cs *mcp.ClientSession) (any, error) {
		return cs.Complete(ctx, &mcp.CompleteParams{Ref: &up, Argument: argument, Context: cctx})
	})
	if err != nil {
		return nil, err
	}
	return res.(*mcp.CompleteResult), nil
}

// request runs one request on a row's session, on this goroutine (see
// internal/session's lane).
func (s *Supervisor) request(ctx context.Context, row *fleet.Row, do func(context.Context, *mcp.ClientSession) (any, error), opts ...CallOption) (any, error) {
	if !row.Routable {
		return nil, fmt.Errorf("%w: %q", ErrNotReady, row.Status.Name)
	}
	handle := row.Session
	if row.Lazy {
		// Started on first use, held until the request ends.
		granted, release, err := s.tree.Use(ctx, row)
		if err != nil {
			return nil, s.replyErr(err)
		}
		defer release()
		handle = granted
	}
	if handle == nil {
		return nil, fmt.Errorf("%w: %q", ErrNotReady, row.Status.Name)
	}
	res, err := handle.Run(&session.Request{Ctx: ctx, Timeout: row.CallTimeout, Do: do, ResetOnProgress: row.ResetOnProgress, Opts: buildCallOptions(opts)})
	if err != nil {
		select {
		case <-s.Done(): // the Supervisor closed under the request
			return nil, s.Err()
		default:
		}
	}
	return res, s.replyErr(err)
}
