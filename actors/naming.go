package actors

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// Naming is done here and only here: every place that exposes a tool (or
// a prompt) names it with QualifiedName and every place that routes one
// splits it with SplitName.
//
// A server's exposed prefix (messages.ServerSpec.Prefix, derived in
// reconciler) never contains "__" and never ends with "_", so cutting an
// exposed name at its first "__" gives back the prefix; tool names may
// contain "__". A server with the empty prefix exposes its tools by their
// own names.

// QualifiedName is how an item of a server is named across the fleet:
// prefix__name, or name alone when the prefix is empty.
func QualifiedName(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + reconciler.PrefixSeparator + name
}

// SplitName cuts an exposed name at its first "__" into a prefix and an
// item name. ok is false when the name has no "__" with text on both
// sides; such a name can only belong to a server with the empty prefix.
func SplitName(name string) (prefix, item string, ok bool) {
	prefix, item, ok = strings.Cut(name, reconciler.PrefixSeparator)
	if !ok || prefix == "" || item == "" {
		return "", name, false
	}
	return prefix, item, true
}

// itemKind is a kind of item named by prefix: tools or prompts.
type itemKind struct {
	noun    string
	has     func(row *serverRow, name string) bool // row is ready
	unknown error
}

var (
	toolItems   = itemKind{"tool", func(r *serverRow, n string) bool { return r.exposed[n] }, ErrUnknownTool}
	promptItems = itemKind{"prompt", func(r *serverRow, n string) bool { return r.cat.hasPrompt(n) }, ErrUnknownPrompt}
)

// route finds the server that exposes the tool name and the tool's own
// name (see routeItem).
func (s *fleetSnapshot) route(name string) (*serverRow, string, error) {
	return s.routeItem(name, toolItems)
}

// routeItem finds the server that exposes name and the item's own name:
// the server whose prefix the name starts with, else a ready server with
// the empty prefix that has an item of that whole name (the first in
// config order, as the gateway ranks them).
func (s *fleetSnapshot) routeItem(name string, kind itemKind) (*serverRow, string, error) {
	if name == "" {
		return nil, "", fmt.Errorf("%w: %q", ErrBadToolName, name)
	}
	if prefix, item, ok := SplitName(name); ok {
		if row, found := s.byPrefix(prefix); found {
			return checkRoutable(row, item, kind)
		}
	}
	for _, row := range s.bare {
		if row.ready && kind.has(row, name) {
			return row, name, nil
		}
	}
	for _, row := range s.bare {
		if row.cached && row.listsCached(name, kind) {
			return nil, "", fmt.Errorf("%w: %q", ErrNotReady, row.status.Name)
		}
	}
	if prefix, _, ok := SplitName(name); ok && len(s.bare) == 0 {
		return nil, "", fmt.Errorf("%w: no server has the prefix %q", ErrUnknownServer, prefix)
	}
	if len(s.bare) == 0 {
		return nil, "", fmt.Errorf("%w: %q is not prefix__%s", ErrBadToolName, name, kind.noun)
	}
	return nil, "", fmt.Errorf("%w: no server exposes %q", kind.unknown, name)
}

func checkRoutable(row *serverRow, item string, kind itemKind) (*serverRow, string, error) {
	switch {
	case !row.ready:
		return nil, "", fmt.Errorf("%w: %q", ErrNotReady, row.status.Name)
	case !kind.has(row, item):
		return nil, "", fmt.Errorf("%w: %q has no %s %q", kind.unknown, row.status.Name, kind.noun, item)
	}
	return row, item, nil
}

// listsCached reports whether a row that shows its cached catalog lists
// an item of kind by that name (the server's own name for it).
func (row *serverRow) listsCached(name string, kind itemKind) bool {
	if kind.noun == toolItems.noun {
		return slices.ContainsFunc(row.tools, func(t messages.Tool) bool { return t.Name == name })
	}
	return row.cat.hasPrompt(name)
}
