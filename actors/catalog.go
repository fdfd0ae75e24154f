package actors

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/messages"
)

// The catalog beyond tools, as the Supervisor exposes it. Reads come from
// the fleet view's snapshot (never blocking, copies); gets, reads,
// completions and subscriptions go to the owning server's session (a lazy
// server is started for gets, reads and completions and held until they
// end: reconciler_lazy.go) and fail with the same error classes as
// CallTool: Err() once the Supervisor has ended (ErrClosed after Close),
// ErrUnknownServer,
// ErrUnknownPrompt / ErrUnknownResource, ErrNotReady, ErrUpstream,
// ErrCallTimeout, ErrCanceled. Each runs under the server's call timeout.

// Prompts returns the prompts of every ready server, sorted by server and
// name (and the cached ones, as Tools). Expose each as QualifiedName(p.Prefix, p.Name).
func (s *Supervisor) Prompts() []messages.Prompt {
	return s.view.Load().Prompts()
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

// promptRow finds the ready server that exposes a prompt by its exposed
// name, and the server's own name for it.
func (s *Supervisor) promptRow(name string) (*serverRow, string, error) {
	if err := s.Err(); err != nil {
		return nil, "", err
	}
	return s.view.Load().RoutePrompt(name)
}

// Resources returns the resources of every ready server, sorted by server
// and URI (and the cached ones, as Tools, which no read reaches until
// their server is ready). A URI two servers list is owned by the first in config order;
// the other's entry is left out (and reported as a CatalogConflict).
func (s *Supervisor) Resources() []messages.Resource {
	return s.view.Load().Resources()
}

// ResourceTemplates returns the resource templates of every ready server,
// sorted by server and URI template; conflicts and cached ones as for
// Resources.
func (s *Supervisor) ResourceTemplates() []messages.ResourceTemplate {
	return s.view.Load().Templates()
}

// ResourceServer names the server a URI is routed to: the first in config
// order that lists a resource of that URI, else the first whose template
// matches it.
func (s *Supervisor) ResourceServer(uri string) (server string, ok bool) {
	row, ok := s.view.Load().ResourceOwner(uri)
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
	row, ok := s.view.Load().ResourceOwner(uri)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownResource, uri)
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
	var row *serverRow
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
		if row, ok = s.view.Load().TemplateOwner(ref.URI); !ok {
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
func (s *Supervisor) request(ctx context.Context, row *serverRow, do func(context.Context, *mcp.ClientSession) (any, error), opts ...CallOption) (any, error) {
	if !row.Routable {
		return nil, fmt.Errorf("%w: %q", ErrNotReady, row.Status.Name)
	}
	handle := row.Session
	if row.Lazy {
		// Started on first use, held until the request ends.
		granted, release, err := s.use(ctx, row)
		if err != nil {
			return nil, err
		}
		defer release()
		handle = granted.handle
	}
	if handle == nil {
		return nil, fmt.Errorf("%w: %q", ErrNotReady, row.Status.Name)
	}
	res, err := handle.Run(&session.Request{Ctx: ctx, Timeout: row.CallTimeout, Do: do, ResetOnProgress: row.ResetOnProgress, Opts: buildCallOptions(opts)})
	if err != nil {
		select {
		case <-s.env.ending.done: // the Supervisor closed under the request
			return nil, s.Err()
		default:
		}
	}
	return res, s.replyErr(err)
}

// SubscribeResource subscribes to updates of a resource: the owning
// server's notifications/resources/updated for uri are published as
// messages.ResourceUpdated events. Subscriptions are counted per URI:
// mcpvisor subscribes upstream once, on the first, and again whenever the
// owning server's session is replaced or restarts, until the last
// UnsubscribeResource. It returns once the upstream subscription is
// acknowledged, or with an error (and no subscription counted).
func (s *Supervisor) SubscribeResource(ctx context.Context, uri string) error {
	if err := s.Err(); err != nil {
		return err
	}
	reply := make(chan error, 1)
	s.sys.Root.Send(s.pids.Reconciler, &subscribeResource{uri: uri, reply: reply})
	var err error
	if werr := s.awaitChan(ctx, reply, &err); werr != nil {
		err = werr
	}
	if err != nil && s.Err() == nil {
		s.sys.Root.Send(s.pids.Reconciler, &unsubscribeResource{uri: uri}) // gives the count back
	}
	return err
}

// awaitChan waits for one error on reply into *out, bounded as await.
func (s *Supervisor) awaitChan(ctx context.Context, reply <-chan error, out *error) error {
	bound := s.env.clock.NewTimer(s.env.opts.CallTimeout+s.env.opts.StopGrace+time.Second, "supervisor", "call-bound")
	defer bound.Stop("supervisor", "call-bound")
	select {
	case *out = <-reply:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrCanceled, ctx.Err())
	case <-s.env.ending.done:
		return s.Err()
	case <-bound.C:
		return fmt.Errorf("%w: no answer to the subscription", ErrNotReady)
	}
}

// UnsubscribeResource drops one subscription to uri; the upstream one ends
// with the last. Unsubscribing a URI not subscribed to is a no-op.
func (s *Supervisor) UnsubscribeResource(uri string) {
	if s.Err() == nil {
		s.sys.Root.Send(s.pids.Reconciler, &unsubscribeResource{uri: uri})
	}
}
