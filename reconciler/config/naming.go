package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Naming. A server's name is kept as written (Cline names servers after
// their repository URL, "github.com/…/brave-search"; people write
// "_private"); what its tools are exposed under is its prefix, joined to
// the tool name by PrefixSeparator. The prefix is derived from the name
// here, purely, unless the entry's prefix field sets it.
//
// A prefix is made of the characters MCP tool names allow (A-Z a-z 0-9 _
// - .), contains no "__" and does not start or end with "_", so that
// cutting an exposed name at its first "__" always gives back the prefix.
// The empty prefix (only ever set explicitly) exposes tools by their own
// names.

// PrefixSeparator joins a prefix and a tool name.
const PrefixSeparator = "__"

// QualifiedName is how an item of a server is named across the fleet:
// prefix__name, or name alone when the prefix is empty. Every place that
// exposes a tool (or a prompt) names it so, and every place that routes
// one cuts it with SplitName.
func QualifiedName(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + PrefixSeparator + name
}

// SplitName cuts an exposed name at its first "__" into a prefix and an
// item name. ok is false when the name has no "__" with text on both
// sides; such a name can only belong to a server with the empty prefix.
// Tool names may contain "__": a prefix never does.
func SplitName(name string) (prefix, item string, ok bool) {
	prefix, item, ok = strings.Cut(name, PrefixSeparator)
	if !ok || prefix == "" || item == "" {
		return "", name, false
	}
	return prefix, item, true
}

// MaxPrefixBytes bounds a derived prefix. Every name accepted before names
// were free-form (at most 64 bytes, no "__", no leading or trailing "_")
// is its own prefix, so exposed tool names did not change.
const MaxPrefixBytes = 64

// prefixHashLen is the length of the stable hash a shortened or
// disambiguated prefix ends with.
const prefixHashLen = 6

// checkPrefix enforces the prefix rules on an entry's prefix field; "" is
// allowed (tools exposed by their own names).
func checkPrefix(p string) string {
	switch {
	case p == "":
		return ""
	case len(p) > MaxPrefixBytes:
		return fmt.Sprintf("prefix is %d bytes long: shorten it to at most %d", len(p), MaxPrefixBytes)
	case strings.Contains(p, PrefixSeparator) || p[0] == '_' || p[len(p)-1] == '_':
		return `prefix contains "__" or starts or ends with "_", which would make exposed tool names ambiguous: use single "_" or "-" inside it`
	}
	for i := 0; i < len(p); i++ {
		if !isToolNameChar(p[i]) {
			return fmt.Sprintf("prefix contains %q, which MCP tool names do not allow: use letters, digits, _, - and .", p[i:i+1])
		}
	}
	return ""
}

// isToolNameChar reports whether MCP tool names allow c.
func isToolNameChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// DerivePrefix is the prefix a server name gets when nothing else claims
// it: the name with every character MCP tool names do not allow replaced
// by "_", runs of "_" made one and "_" trimmed from both ends. A name
// longer than MaxPrefixBytes after that keeps its last path segment (or
// its beginning) and ends with a short hash of the whole name, so two long
// names that share a beginning stay apart. A name with nothing usable
// left becomes "server-" and its hash.
func DerivePrefix(name string) string {
	p := sanitize(name)
	switch {
	case p == "":
		return "server-" + nameHash(name)
	case len(p) <= MaxPrefixBytes:
		return p
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		if tail := sanitize(name[i+1:]); tail != "" {
			p = tail
		}
	}
	return withHash(p, name)
}

// sanitize maps name onto the prefix alphabet.
func sanitize(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	underscore := true // drops leading "_"
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isToolNameChar(c) {
			c = '_'
		}
		if c == '_' {
			if underscore {
				continue
			}
			underscore = true
		} else {
			underscore = false
		}
		b.WriteByte(c)
	}
	return strings.TrimRight(b.String(), "_")
}

// withHash ends p with "-" and the hash of name, cutting p so that the
// whole fits MaxPrefixBytes.
func withHash(p, name string) string {
	suffix := "-" + nameHash(name)
	if room := MaxPrefixBytes - len(suffix); len(p) > room {
		p = strings.TrimRight(p[:room], "_")
	}
	return p + suffix
}

func nameHash(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])[:prefixHashLen]
}

// assignPrefixes gives every server of a merged config its exposed prefix,
// unique across the config. Claims go in this order, so that a server's
// prefix changes only when it must:
//
//  1. an entry's own prefix field ("" claims nothing: bare tools are
//     resolved per tool, not per server);
//  2. names that are their own derived prefix (every name that was
//     valid before names were free-form);
//  3. every other name's derived prefix, in name order; one that is
//     taken gets the hash of the name appended.
//
// A server whose prefix field is already claimed, or whose derived prefix
// is taken even with the hash, cannot be exposed: it moves to invalid with
// a reason that names the other server. servers is sorted by name.
func assignPrefixes(servers []messages.ServerSpec) (valid []messages.ServerSpec, invalid []messages.InvalidServer) {
	owner := make(map[string]string, len(servers))
	bad := make(map[int]string)
	claim := func(i int, p string) bool {
		if _, taken := owner[p]; taken {
			return false
		}
		owner[p] = servers[i].Name
		servers[i].Prefix = p
		return true
	}
	// candidate is each remaining server's derived prefix; "" once claimed.
	candidate := make([]string, len(servers))
	for i := range servers {
		s := &servers[i]
		switch {
		case s.PrefixOverride == nil:
			candidate[i] = DerivePrefix(s.Name)
		case *s.PrefixOverride == "":
			s.Prefix = ""
		case !claim(i, *s.PrefixOverride):
			bad[i] = fmt.Sprintf("prefix %q is already the prefix of server %q: give one of them another prefix",
				*s.PrefixOverride, owner[*s.PrefixOverride])
		}
	}
	for i := range servers {
		if p := candidate[i]; p != "" && p == servers[i].Name && claim(i, p) {
			candidate[i] = ""
		}
	}
	for i := range servers {
		p := candidate[i]
		if p == "" || claim(i, p) {
			continue
		}
		if claim(i, withHash(p, servers[i].Name)) {
			continue
		}
		bad[i] = fmt.Sprintf("server name gives the exposed prefix %q, which server %q already has: rename one of them, or set a prefix field",
			p, owner[p])
	}
	if len(bad) == 0 {
		return servers, nil
	}
	valid = make([]messages.ServerSpec, 0, len(servers)-len(bad))
	for i, s := range servers {
		reason, ok := bad[i]
		if !ok {
			valid = append(valid, s)
			continue
		}
		invalid = append(invalid, messages.InvalidServer{Name: s.Name, Source: s.Source, Reason: formatPosition(s.Source) + ": " + reason})
	}
	return valid, invalid
}
