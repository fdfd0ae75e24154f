package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// With a cached catalog check judges the names themselves: a tool or
// prompt name serve would shorten is a warning that names the server, the
// name, its length in Claude Code, what serve exposes and the fix; a
// name that fits is not, and the prefix alone is not judged.
func TestNameWarnings_CachedNames(t *testing.T) {
	t.Parallel()
	at := messages.Position{Path: "/p/.mcp.json", Line: 3, Column: 5}
	servers := []messages.ServerSpec{
		{Name: "desktop-commander", Prefix: "desktop-commander", Source: at},
		{Name: "other", Prefix: "other", Source: messages.Position{Path: "/p/.mcp.json", Line: 4, Column: 5}},
	}
	cached := []reconciler.CachedCatalog{
		{Server: "desktop-commander", Source: "/p/.mcp.json", Tools: []messages.Tool{{Name: "give_feedback_to_desktop_commander"}, {Name: "read_file"}}},
		// Another file's server of that name: not this one.
		{Server: "other", Source: "/elsewhere/.mcp.json", Tools: []messages.Tool{{Name: "a_tool_name_that_is_long_enough_to_be_shortened_by_serve"}}},
	}
	got := nameWarnings(servers, cached)
	want := []messages.Diagnostic{{Position: at, Severity: messages.SeverityWarning,
		Message: `server "desktop-commander": tool "give_feedback_to_desktop_commander" is 68 characters in Claude Code as ` +
			`mcp__mcpvisor__desktop-commander__give_feedback_to_desktop_commander (its API takes 64); ` +
			`serve exposes it as deskt-5440bf__give_feedback_to_desktop_commander (--max-name-length 64 keeps names within 48); ` +
			`for a readable name, set a shorter "prefix" on the server, use a shorter entry name than "mcpvisor" ` +
			`(and raise --max-name-length by the characters saved), or serve with --names bare`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}
}
