package view

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// Errors routing ends with; the Supervisor re-exports each (actors.ErrX),
// so errors.Is holds for its callers. A name that routes to a server not
// ready is no error here: the row says so (Routable), and the request is
// not ready.
var (
	// ErrUnknownServer: no configured server has that exposed prefix.
	ErrUnknownServer = errors.New("unknown server")
	// ErrUnknownTool: the server does not expose a tool of that name (it
	// does not have it, or the allow and deny lists hide it).
	ErrUnknownTool = errors.New("tool not exposed")
	// ErrUnknownPrompt: the server does not expose a prompt of that name.
	ErrUnknownPrompt = errors.New("prompt not exposed")
	// ErrUnknownResource: no routable server owns that URI (no resource
	// of that URI and no resource template matching it).
	ErrUnknownResource = errors.New("resource not exposed")
	// ErrBadToolName: a tool name that is not prefix__tool (and no server
	// exposes tools by their own names).
	ErrBadToolName = errors.New("tool name must be prefix__tool")
)

// itemKind is a kind of item named by prefix: tools or prompts.
type itemKind int

const (
	toolItems itemKind = iota
	promptItems
)

func (k itemKind) noun() string { return [...]string{"tool", "prompt"}[k] }

func (k itemKind) unknown() error { return [...]error{ErrUnknownTool, ErrUnknownPrompt}[k] }

// exposes reports whether a routable row exposes an item of kind k by
// that name (the server's own name for it).
func exposes[S comparable](r *Row[S], k itemKind, name string) bool {
	if k == toolItems {
		return r.exposed[name]
	}
	return r.cat.hasPrompt(name)
}

// listsCached reports whether a row that shows its cached catalog lists
// an item of kind k by that name.
func listsCached[S comparable](r *Row[S], k itemKind, name string) bool {
	if k == toolItems {
		return slices.ContainsFunc(r.tools, func(t messages.Tool) bool { return t.Name == name })
	}
	return r.cat.hasPrompt(name)
}

// RouteTool finds the server that exposes the tool of that exposed name,
// and the tool's own name (see route).
func (s *Snapshot[S]) RouteTool(name string) (*Row[S], string, error) {
	return s.route(name, toolItems)
}

// RoutePrompt finds the server that exposes the prompt of that exposed
// name, and the prompt's own name.
func (s *Snapshot[S]) RoutePrompt(name string) (*Row[S], string, error) {
	return s.route(name, promptItems)
}

// RouteResource finds the server a URI routes to (ResourceOwner).
func (s *Snapshot[S]) RouteResource(uri string) (*Row[S], error) {
	row, ok := s.ResourceOwner(uri)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownResource, uri)
	}
	return row, nil
}

// route finds the server that exposes name and the item's own name: the
// server whose prefix the name starts with, else a routable server with
// the empty prefix that has an item of that whole name (the first in
// config order, as the gateway ranks them), else one not up yet that
// lists it from its cached catalog. The row found may not be routable (a
// server not ready): its request is then not ready, or waits for it
// (actors/internal/fleet/starting.go); a name its cached catalog lacks is unknown.
func (s *Snapshot[S]) route(name string, kind itemKind) (*Row[S], string, error) {
	if name == "" {
		return nil, "", fmt.Errorf("%w: %q", ErrBadToolName, name)
	}
	if prefix, item, ok := config.SplitName(name); ok {
		if row, found := s.byPrefix(prefix); found {
			if row.Routable && !exposes(row, kind, item) {
				return nil, "", fmt.Errorf("%w: %q has no %s %q", kind.unknown(), row.Status.Name, kind.noun(), item)
			}
			if !row.Routable && row.cached && !listsCached(row, kind, item) {
				// Not up yet, and its cached catalog lacks it: unknown at
				// once, as the lists (from that catalog) say.
				return nil, "", fmt.Errorf("%w: %q has no %s %q (in its cached catalog; it is starting)", kind.unknown(), row.Status.Name, kind.noun(), item)
			}
			return row, item, nil
		}
	}
	for _, row := range s.bare {
		if row.Routable && exposes(row, kind, name) {
			return row, name, nil
		}
	}
	for _, row := range s.bare {
		if row.cached && listsCached(row, kind, name) {
			return row, name, nil
		}
	}
	if prefix, _, ok := config.SplitName(name); ok && len(s.bare) == 0 {
		return nil, "", fmt.Errorf("%w: no server has the prefix %q", ErrUnknownServer, prefix)
	}
	if len(s.bare) == 0 {
		return nil, "", fmt.Errorf("%w: %q is not prefix__%s", ErrBadToolName, name, kind.noun())
	}
	return nil, "", fmt.Errorf("%w: no server exposes %q", kind.unknown(), name)
}
