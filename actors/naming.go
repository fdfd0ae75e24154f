package actors

import (
	"fmt"
	"strings"

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

// route finds the server that exposes name and the tool's own name: the
// server whose prefix the name starts with, else a server with the empty
// prefix that has a tool of that whole name (the first by server name).
func (s *fleetSnapshot) route(name string) (*serverRow, string, error) {
	if name == "" {
		return nil, "", fmt.Errorf("%w: %q", ErrBadToolName, name)
	}
	if prefix, tool, ok := SplitName(name); ok {
		if row, found := s.byPrefix(prefix); found {
			return checkRoutable(row, tool)
		}
	}
	for _, row := range s.bare {
		if row.exposed[name] {
			return checkRoutable(row, name)
		}
	}
	if prefix, _, ok := SplitName(name); ok && len(s.bare) == 0 {
		return nil, "", fmt.Errorf("%w: no server has the prefix %q", ErrUnknownServer, prefix)
	}
	if len(s.bare) == 0 {
		return nil, "", fmt.Errorf("%w: %q is not prefix__tool", ErrBadToolName, name)
	}
	return nil, "", fmt.Errorf("%w: no server exposes %q", ErrUnknownTool, name)
}

func checkRoutable(row *serverRow, tool string) (*serverRow, string, error) {
	switch {
	case !row.ready:
		return nil, "", fmt.Errorf("%w: %q", ErrNotReady, row.status.Name)
	case !row.exposed[tool]:
		return nil, "", fmt.Errorf("%w: %q has no tool %q", ErrUnknownTool, row.status.Name, tool)
	}
	return row, tool, nil
}
