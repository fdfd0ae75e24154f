package oauth

import "slices"

// The scopes mcpvisor asks for are bounded: a server's insufficient_scope
// challenges once grew the requested set with every challenge, without
// end. What is asked is the config's scopes and the latest challenge's
// (or, with neither, what the server's metadata offers), each a valid
// RFC 6749 scope token of at most maxScopeLen bytes, deduplicated, at
// most maxScopes of them.
const (
	maxScopes   = 32
	maxScopeLen = 128
)

// boundScopes is the union of lists in order, keeping only valid scope
// tokens, at most maxScopes.
func boundScopes(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if len(out) == maxScopes {
				return out
			}
			if validScope(s) && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// validScope reports whether s is an RFC 6749 scope-token (%x21 / %x23-5B
// / %x5D-7E) no longer than maxScopeLen.
func validScope(s string) bool {
	if s == "" || len(s) > maxScopeLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
