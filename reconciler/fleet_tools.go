package reconciler

import (
	"slices"
	"sort"

	"github.com/mcpvisor/mcpvisor/messages"
)

// filterTools applies a server's allow and deny lists. An empty allow list
// allows everything.
func filterTools(tools []messages.Tool, spec messages.ServerSpec) []messages.Tool {
	if len(spec.AllowTools) == 0 && len(spec.DenyTools) == 0 {
		return tools
	}
	out := make([]messages.Tool, 0, len(tools))
	for _, t := range tools {
		if len(spec.AllowTools) > 0 && !slices.Contains(spec.AllowTools, t.Name) {
			continue
		}
		if slices.Contains(spec.DenyTools, t.Name) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// diffTools names the tools added, removed and changed (same name, other
// hash) between two sorted tool lists.
func diffTools(old, new []messages.Tool) (added, removed, changed []string) {
	added, removed, changed = []string{}, []string{}, []string{}
	prev := make(map[string]string, len(old))
	for _, t := range old {
		prev[t.Name] = t.Hash
	}
	for _, t := range new {
		h, ok := prev[t.Name]
		switch {
		case !ok:
			added = append(added, t.Name)
		case h != t.Hash:
			changed = append(changed, t.Name)
		}
		delete(prev, t.Name)
	}
	for name := range prev {
		removed = append(removed, name)
	}
	sort.Strings(removed)
	return added, removed, changed
}
