package actors

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/fleet"
	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Requests, and the catalog they are made against. Reads come from the
// fleet view's snapshot (never blocking, copies); calls, gets, reads and
// completions run on the caller's goroutine, on the owning server's
// session (a lazy server is started for them and held until they end; one
// that is starting is waited for, fleet.RouteWhenUp),
// and fail with the same error classes: Err() once the Supervisor has
// ended (ErrClosed after Close), ErrBadToolName, ErrUnknownServer,
// ErrUnknownTool / ErrUnknownPrompt / ErrUnknownResource, ErrNotReady,
// ErrUpstream, ErrCallTimeout, ErrCanceled. Each runs under the server's
// call timeout.

// CallTool calls a tool by its exposed name, QualifiedName(prefix, tool).
// Errors wrap one of the Err values; a result with IsError set is a success.
func (s *Supervisor) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*mcp.CallToolResult, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	rt, tool, err := routeWhenUp(ctx, s, func(snap *fleet.Snapshot) (*fleet.Row, string, error) { return snap.RouteTool(name) },
		func(snap *fleet.Snapshot) []*fleet.Row { return snap.StartingFor(name) })
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

// Prompts returns the prompts, as Tools.
func (s *Supervisor) Prompts() []messages.Prompt {
	return s.tree.Snapshot().Prompts()
}

// GetPrompt gets a prompt by its exposed name, as CallTool.
func (s *Supervisor) GetPrompt(ctx context.Context, name string, args map[string]string, opts ...CallOption) (*mcp.GetPromptResult, error) {
	row, prompt, err := s.promptRow(ctx, name)
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
// and the server's own name for it (waiting for it if it is starting).
func (s *Supervisor) promptRow(ctx context.Context, name string) (*fleet.Row, string, error) {
	if err := s.Err(); err != nil {
		return nil, "", err
	}
	return routeWhenUp(ctx, s, func(snap *fleet.Snapshot) (*fleet.Row, string, error) { return snap.RoutePrompt(name) },
		func(snap *fleet.Snapshot) []*fleet.Row { return snap.StartingFor(name) })
}

// resourceRow finds the server that owns a URI (waiting for it if it is
// starting): a ready one, else one not up yet that lists it from its
// cached catalog; owner finds it among those that are ready.
func (s *Supervisor) resourceRow(ctx context.Context, uri string, owner func(*fleet.Snapshot) (*fleet.Row, bool), cached func(*fleet.Snapshot) (*fleet.Row, bool)) (*fleet.Row, error) {
	row, _, err := routeWhenUp(ctx, s, func(snap *fleet.Snapshot) (*fleet.Row, struct{}, error) {
		if row, ok := owner(snap); ok {
			return row, struct{}{}, nil
		}
		if row, ok := cached(snap); ok {
			return row, struct{}{}, nil
		}
		return nil, struct{}{}, fmt.Errorf("%w: %q", ErrUnknownResource, uri)
	}, (*fleet.Snapshot).StartingUnknown)
	return row, err
}

// Resources returns the resources, as Tools; of two servers listing one
// URI, the first in config order owns it.
func (s *Supervisor) Resources() []messages.Resource {
	return s.tree.Snapshot().Resources()
}

// ResourceTemplates returns the resource templates, as Resources.
func (s *Supervisor) ResourceTemplates() []messages.ResourceTemplate {
	return s.tree.Snapshot().Templates()
}

// ReadResource reads a resource from the server that owns its URI.
func (s *Supervisor) ReadResource(ctx context.Context, uri string, opts ...CallOption) (*mcp.ReadResourceResult, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	row, err := s.resourceRow(ctx, uri, func(snap *fleet.Snapshot) (*fleet.Row, bool) { return snap.ResourceOwner(uri) },
		func(snap *fleet.Snapshot) (*fleet.Row, bool) { return snap.CachedResourceOwner(uri) })
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

// Complete completes an argument of a prompt (by qualified name) or of a
// resource template, on its server.
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
		if row, prompt, err = s.promptRow(ctx, ref.Name); err != nil {
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
		var err error
		if row, err = s.resourceRow(ctx, ref.URI, func(snap *fleet.Snapshot) (*fleet.Row, bool) { return snap.TemplateOwner(ref.URI) },
			func(snap *fleet.Snapshot) (*fleet.Row, bool) { return snap.CachedTemplateOwner(ref.URI) }); err != nil {
			return nil, err
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

// routeWhenUp routes a request once the fleet has applied its config
// (awaitDesired), waiting for a server that is starting
// (fleet.RouteWhenUp).
func routeWhenUp[T any](ctx context.Context, s *Supervisor, route func(*fleet.Snapshot) (*fleet.Row, T, error), candidates func(*fleet.Snapshot) []*fleet.Row) (*fleet.Row, T, error) {
	if err := s.awaitDesired(ctx); err != nil {
		var zero T
		return nil, zero, err
	}
	return fleet.RouteWhenUp(ctx, s.tree, route, candidates)
}

// awaitDesired waits, for a request that comes before the fleet has
// applied its first desired state (a client that connects as the gateway
// starts may ask before the config files are read), until it has, by the
// fleet's events: at most the longer of the default connect and call
// timeouts, never past the request's context.
func (s *Supervisor) awaitDesired(ctx context.Context) error {
	if s.tree.Snapshot().Applied() {
		return nil
	}
	feed := s.Follow(journal.Live, 16)
	defer feed.Close()
	wait := max(s.opts.ConnectTimeout, s.opts.CallTimeout)
	bound := s.opts.Clock.NewTimer(wait, "supervisor", "config-wait")
	defer bound.Stop("supervisor", "config-wait")
	for !s.tree.Snapshot().Applied() { // checked again once following: no event is missed
		select {
		case _, ok := <-feed.C:
			if !ok {
				return s.closedErr()
			}
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrCanceled, ctx.Err())
		case <-s.Done():
			return s.closedErr()
		case <-bound.C:
			return fmt.Errorf("%w: the configuration was not applied within %s", ErrNotReady, wait)
		}
	}
	return nil
}

// closedErr is the error of a Supervisor that has ended.
func (s *Supervisor) closedErr() error {
	if err := s.Err(); err != nil {
		return err
	}
	return ErrClosed
}
