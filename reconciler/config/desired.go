package config

import (
	"strings"

	"github.com/mcpvisor/mcpvisor/messages"
)

// SameDesired reports whether two configs ask for the same thing: the same
// servers, each with the same expanded spec and settings, and the same
// invalid entries for the same reasons. Where things are declared does not
// count: a save that only moves text around (white space, comments, key
// order, entries reordered) leaves the desired state, and so its
// generation, unchanged. Diagnostics do not count either: they describe
// the files, not what should run.
func SameDesired(a, b Loaded) bool {
	if len(a.Servers) != len(b.Servers) || len(a.Invalid) != len(b.Invalid) {
		return false
	}
	for i := range a.Servers {
		if !sameSpec(a.Servers[i], b.Servers[i]) {
			return false
		}
	}
	for i := range a.Invalid {
		x, y := a.Invalid[i], b.Invalid[i]
		if x.Name != y.Name || x.Source.Path != y.Source.Path ||
			withoutPositions(x.Reason, x.Source.Path) != withoutPositions(y.Reason, y.Source.Path) {
			return false
		}
	}
	return true
}

// sameSpec compares two specs field by field, as serverFields says (the
// source compares by file only).
func sameSpec(a, b messages.ServerSpec) bool {
	for i := range serverFields {
		if !serverFields[i].equal(&a, &b) {
			return false
		}
	}
	return true
}

// withoutPositions removes the "path:line:col: " prefixes an invalid
// entry's reason gives each of its problems, so that two reasons compare
// by what they say.
func withoutPositions(reason, path string) string {
	prefix := path + ":"
	if !strings.Contains(reason, prefix) {
		return reason
	}
	var b strings.Builder
	for {
		i := strings.Index(reason, prefix)
		if i < 0 {
			b.WriteString(reason)
			return b.String()
		}
		b.WriteString(reason[:i])
		rest := reason[i+len(prefix):]
		if n := positionLen(rest); n > 0 {
			reason = rest[n:]
			continue
		}
		b.WriteString(prefix)
		reason = rest
	}
}

// positionLen is the length of a "line:col: " at the start of s, or 0.
func positionLen(s string) int {
	i := digitsLen(s)
	if i == 0 || i >= len(s) || s[i] != ':' {
		return 0
	}
	j := digitsLen(s[i+1:])
	if j == 0 || !strings.HasPrefix(s[i+1+j:], ": ") {
		return 0
	}
	return i + 1 + j + 2
}

func digitsLen(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}
