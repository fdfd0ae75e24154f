package reconciler

import "github.com/mcpvisor/mcpvisor/messages"

// What the fleet does to a session's catalog before exposing it, for a
// catalog that did not come from a session: the shell's catalog cache
// shows a server's last catalog while it starts, under the same rules and
// announced with the same diffs as a live one.

// ExposeTools applies spec's tool filters to tools and stamps each with
// spec's exposed prefix, as the fleet does with a ready session's tools.
func ExposeTools(tools []messages.Tool, spec messages.ServerSpec) []messages.Tool {
	return filterTools(tools, spec)
}

// StampPrompts returns prompts stamped with the exposed prefix (the list
// itself when every prompt already has it).
func StampPrompts(prompts []messages.Prompt, prefix string) []messages.Prompt {
	return stampPrompts(prompts, prefix)
}

// DiffTools names the tools added, removed and changed (same name, other
// hash or another prefix) between two exposed tool lists sorted by name.
func DiffTools(old, new []messages.Tool) (added, removed, changed []string) {
	return diffTools(old, new)
}

// DiffPrompts, DiffResources and DiffTemplates do the same for the rest of
// the catalog, by prompt name, URI and URI template.
func DiffPrompts(old, new []messages.Prompt) (added, removed, changed []string) {
	return diffItems(old, new, promptKey, promptHash)
}

func DiffResources(old, new []messages.Resource) (added, removed, changed []string) {
	return diffItems(old, new, resourceKey, resourceHash)
}

func DiffTemplates(old, new []messages.ResourceTemplate) (added, removed, changed []string) {
	return diffItems(old, new, templateKey, templateHash)
}
