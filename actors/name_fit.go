package actors

import "github.com/mcpvisor/mcpvisor/reconciler/config"

// Names that fit a client's limit (config.FitName has the scheme): a
// maximum name length counts ClientNameAllowance for the client's own
// wrapping ("mcp__<entry>__" in Claude Code), and bounds exposed names to
// the rest, NameBudget.
const (
	DefaultMaxNameLength = config.DefaultMaxNameLength
	ClientNameAllowance  = config.ClientNameAllowance
	MinMaxNameLength     = config.MinMaxNameLength
	ClaudeCodeEntry      = config.ClaudeCodeEntry
	ClaudeCodeMaxName    = config.ClaudeCodeMaxName
	LongNameFix          = config.LongNameFix
)

// NameBudget is how long exposed names may be under a maximum name
// length (0: no bound).
func NameBudget(maxLength int) int { return config.NameBudget(maxLength) }

// FitName is the exposed name of an item of a server with prefix, at most
// budget bytes, shortened with stable hashes when it must be.
func FitName(prefix, name string, budget int) (exposed string, shortened bool) {
	return config.FitName(prefix, name, budget)
}

// ExposesPrefix reports whether exposed, the prefix part of an exposed
// name, stands for prefix (is it, or FitName's shortening of it).
func ExposesPrefix(prefix, exposed string) bool { return config.ExposesPrefix(prefix, exposed) }

// ClaudeCodeName is how Claude Code names the tool exposed under entry.
func ClaudeCodeName(entry, exposed string) string { return config.ClaudeCodeName(entry, exposed) }
