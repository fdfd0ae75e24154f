package cli

import (
	"fmt"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// minToolNameRoom is the room for tool names below which check warns of
// a prefix it has no cached tool names for: a tool name as long as many
// servers' (create_pull_request_review, give_feedback_to_desktop_commander)
// would pass 64 characters in Claude Code.
const minToolNameRoom = 24

// nameWarnings are check's warnings about names Claude Code, behind an
// entry named mcpvisor, would see over the 64 characters its API takes
// (serve shortens them under its default --max-name-length, to names that
// end with a hash). check knows tool and prompt names only from the
// catalog cache, the servers' last listings: a server cached is judged by
// its names; one not cached by how much room its prefix leaves.
func nameWarnings(servers []messages.ServerSpec, cached []reconciler.CachedCatalog) []messages.Diagnostic {
	var out []messages.Diagnostic
	for _, s := range servers {
		warn := func(format string, args ...any) {
			out = append(out, messages.Diagnostic{Position: s.Source, Severity: messages.SeverityWarning,
				Message: fmt.Sprintf("server %q: ", s.Name) + fmt.Sprintf(format, args...)})
		}
		c, ok := cachedFor(s, cached)
		if !ok {
			if room := config.ClaudeCodeMaxName - len(config.ClaudeCodeName(config.ClaudeCodeEntry, s.Prefix+"__")); s.Prefix != "" && room < minToolNameRoom {
				warn("its prefix %q leaves %d characters for tool names before %s passes %d characters in Claude Code; "+
					"serve shortens longer names, ending them with a hash; for readable names, %s",
					s.Prefix, max(room, 0), config.ClaudeCodeName(config.ClaudeCodeEntry, s.Prefix+"__<tool>"), config.ClaudeCodeMaxName, config.LongNameFix)
			}
			continue
		}
		for _, t := range c.Tools {
			if msg, long := longName("tool", s.Prefix, t.Name); long {
				warn("%s", msg)
			}
		}
		for _, p := range c.Prompts {
			if msg, long := longName("prompt", s.Prefix, p.Name); long {
				warn("%s", msg)
			}
		}
	}
	return out
}

// longName says, for a name serve would have to shorten under its
// default --max-name-length, how long it is in Claude Code and what serve
// exposes instead.
func longName(kind, prefix, name string) (string, bool) {
	exposed, shortened := config.FitName(prefix, name, config.NameBudget(config.DefaultMaxNameLength))
	if !shortened {
		return "", false
	}
	inClaude := config.ClaudeCodeName(config.ClaudeCodeEntry, actors.QualifiedName(prefix, name))
	return fmt.Sprintf("%s %q is %d characters in Claude Code as %s (its API takes %d); "+
		"serve exposes it as %s (--max-name-length %d keeps names within %d); for a readable name, %s",
		kind, name, len(inClaude), inClaude, config.ClaudeCodeMaxName,
		exposed, config.DefaultMaxNameLength, config.NameBudget(config.DefaultMaxNameLength), config.LongNameFix), true
}

// cachedFor is the cached catalog of s: the entry of its name from the
// file that declares it.
func cachedFor(s messages.ServerSpec, cached []reconciler.CachedCatalog) (reconciler.CachedCatalog, bool) {
	for _, c := range cached {
		if c.Server == s.Name && c.Source == s.Source.Path {
			return c, true
		}
	}
	return reconciler.CachedCatalog{}, false
}
