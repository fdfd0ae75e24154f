package config

import (
	"strings"
	"unicode/utf8"
)

// Fitting names to a client's limit. Clients wrap the names they get:
// Claude Code calls the tool t of its entry e "mcp__e__t", and the
// Anthropic API refuses a request that holds a tool name over 64
// characters (anthropics/claude-code#2485, #955), so a server named
// desktop-commander with the tool give_feedback_to_desktop_commander,
// behind an entry named mcpvisor, breaks every turn at 68 characters.
//
// A maximum name length n (DefaultMaxNameLength) therefore counts a
// ClientNameAllowance for the client's wrapping, and bounds exposed names
// to n - ClientNameAllowance bytes: 64 - 16 = 48 by default, which leaves
// "mcp__" + an entry name of up to 9 characters + "__" (Claude Code with
// the entry mcpvisor adds 15: 48 + 15 = 63). FitName shortens what does
// not fit: the prefix first, then the name, each cut and ended with "-"
// and the stable hash that long server names already get (DerivePrefix:
// the first 6 hex digits of the SHA-256 of what was cut). The result
// depends only on the prefix, the name and the bound, so it is the same
// across restarts and replicas; two names that differ anywhere differ in
// their hashes, so cut alike they still stay apart.

// DefaultMaxNameLength is the default maximum name length, the Anthropic
// API's bound on a tool name, the client's wrapping included.
const DefaultMaxNameLength = 64

// ClientNameAllowance is the part of a maximum name length kept for the
// client's own wrapping of a name: "mcp__<entry>__" in Claude Code, 16
// characters for an entry name of up to 9.
const ClientNameAllowance = 16

// minShortened is the shortest a shortened part can be: one character,
// "-" and the hash.
const minShortened = 1 + 1 + prefixHashLen

// MinMaxNameLength is the smallest maximum name length a gateway takes:
// room, after the allowance, for a shortened prefix, "__" and a
// shortened name.
const MinMaxNameLength = ClientNameAllowance + 2*minShortened + len(PrefixSeparator)

// ClaudeCodeEntry is the entry name people give mcpvisor in Claude Code,
// and ClaudeCodeMaxName the longest tool name, wrapping included, that
// Claude Code's API accepts; warnings measure names by them.
const (
	ClaudeCodeEntry   = "mcpvisor"
	ClaudeCodeMaxName = 64
)

// ClaudeCodeName is how Claude Code names the tool exposed under the
// entry entry.
func ClaudeCodeName(entry, exposed string) string {
	return "mcp__" + entry + PrefixSeparator + exposed
}

// LongNameFix says what to do about a name that had to be shortened or
// that passes the limit: the shortened name works, but a readable one
// takes one of these.
const LongNameFix = `set a shorter "prefix" on the server, use a shorter entry name than "` + ClaudeCodeEntry +
	`" (and raise --max-name-length by the characters saved), or serve with --names bare`

// NameBudget is how long exposed names may be under the maximum name
// length maxLength: maxLength less ClientNameAllowance; 0 (no bound) when
// maxLength is 0 or less.
func NameBudget(maxLength int) int {
	if maxLength <= 0 {
		return 0
	}
	return maxLength - ClientNameAllowance
}

// FitName is the exposed name of the item name of a server with prefix
// (QualifiedName; "" exposes it bare), at most budget bytes (0: no bound;
// a budget under MinMaxNameLength - ClientNameAllowance is raised to
// it). When the qualified name is longer, the prefix is shortened first,
// to no less than one character and its hash, and the name next, each to
// a cut of itself, "-" and its hash; shortened says so. A shortened
// prefix still holds no "__", so SplitName gives it back.
func FitName(prefix, name string, budget int) (exposed string, shortened bool) {
	q := QualifiedName(prefix, name)
	if budget <= 0 || len(q) <= budget {
		return q, false
	}
	budget = max(budget, MinMaxNameLength-ClientNameAllowance)
	if prefix == "" {
		return shorten(name, budget), true
	}
	p := prefix
	if room := max(budget-len(PrefixSeparator)-len(name), minShortened); len(p) > room {
		p = shorten(p, room)
	}
	if len(p)+len(PrefixSeparator)+len(name) <= budget {
		return p + PrefixSeparator + name, true
	}
	return p + PrefixSeparator + shorten(name, budget-len(p)-len(PrefixSeparator)), true
}

// ExposesPrefix reports whether exposed, the prefix part of an exposed
// name, stands for prefix: it is prefix, or prefix as FitName shortens it.
func ExposesPrefix(prefix, exposed string) bool {
	if exposed == prefix {
		return true
	}
	head, ok := strings.CutSuffix(exposed, "-"+nameHash(prefix))
	return ok && len(exposed) < len(prefix) && strings.HasPrefix(prefix, head)
}

// shorten is s cut to at most n bytes in all (n at least minShortened),
// at a character boundary and without trailing "_", "-" or ".", then "-"
// and the hash of s.
func shorten(s string, n int) string {
	suffix := "-" + nameHash(s)
	keep := max(n-len(suffix), 0)
	for keep > 0 && keep < len(s) && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return strings.TrimRight(s[:min(keep, len(s))], "_-.") + suffix
}
