package reconciler

import (
	"slices"
	"sort"

	"github.com/mcpvisor/mcpvisor/messages"
)

// filterTools applies a server's allow and deny lists and stamps each
// tool with the server's exposed prefix. An empty allow list allows
// everything. The lists name tools as the server names them, whatever the
// prefix.
func filterTools(tools []messages.Tool, spec messages.ServerSpec) []messages.Tool {
	out := make([]messages.Tool, 0, len(tools))
	for _, t := range tools {
		if len(spec.AllowTools) > 0 && !slices.Contains(spec.AllowTools, t.Name) {
			continue
		}
		if slices.Contains(spec.DenyTools, t.Name) {
			continue
		}
		t.Prefix = spec.Prefix
		out = append(out, t)
	}
	return out
}

// toolFilter is what filterTools applies of a spec.
type toolFilter struct {
	prefix      string
	allow, deny []string
}

func toolFilterOf(spec messages.ServerSpec) toolFilter {
	return toolFilter{prefix: spec.Prefix, allow: spec.AllowTools, deny: spec.DenyTools}
}

func (a toolFilter) equal(b toolFilter) bool {
	return a.prefix == b.prefix && slices.Equal(a.allow, b.allow) && slices.Equal(a.deny, b.deny)
}

// stampPrompts returns prompts, each stamped with the server's exposed
// prefix: the list itself when every prompt already has it, else a copy
// (lists a session sent are never mutated).
func stampPrompts(prompts []messages.Prompt, prefix string) []messages.Prompt {
	if !slices.ContainsFunc(prompts, func(p messages.Prompt) bool { return p.Prefix != prefix }) {
		return prompts
	}
	out := slices.Clone(prompts)
	for i := range out {
		out[i].Prefix = prefix
	}
	return out
}

// sameTool says two exposed tools are the same: name, prefix and hash.
func sameTool(a, b messages.Tool) bool {
	return a.Name == b.Name && a.Prefix == b.Prefix && a.Hash == b.Hash
}

// diffTools names the tools added, removed and changed (same name, other
// hash or another exposed prefix) between two sorted tool lists.
func diffTools(old, new []messages.Tool) (added, removed, changed []string) {
	added, removed, changed = []string{}, []string{}, []string{}
	if slices.EqualFunc(old, new, sameTool) { // filtered afresh, as before
		return added, removed, changed
	}
	prev := make(map[string]string, len(old))
	for _, t := range old {
		prev[t.Name] = t.Prefix + "\x00" + t.Hash
	}
	for _, t := range new {
		h, ok := prev[t.Name]
		switch {
		case !ok:
			added = append(added, t.Name)
		case h != t.Prefix+"\x00"+t.Hash:
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
