package redact

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// Mark replaces every secret.
	Mark = "[redacted]"
	// MaxBytes bounds Redact's output, so that a server printing a
	// megabyte line cannot blow up an event or a log.
	MaxBytes = 4096
	// MinSecretBytes is the shortest secret worth redacting. Shorter values
	// ("1", "yes", "dev") occur everywhere in ordinary text, and hiding
	// them would make every message unreadable while protecting nothing.
	MinSecretBytes = 4
)

// truncationMark ends output cut at MaxBytes.
const truncationMark = "…"

// Redactor removes a fixed set of secrets from text. It is immutable and
// safe for concurrent use; the zero value and a nil *Redactor redact
// nothing but still bound the output.
//
// Matching is exact and byte-wise. Every occurrence of every secret is
// found, overlapping ones included, and each maximal run of bytes covered by
// some secret becomes one Mark: replacing greedily left to right
// (as strings.Replacer does) would leave the tail of a secret that overlaps
// an earlier, different one in the clear. The secrets are compiled once into
// an Aho-Corasick automaton, so Redact costs one pass over the text whatever
// the number of secrets; it runs on every stderr line.
//
// Besides each secret as given, the Redactor also matches the forms in
// which the secret commonly reappears in messages: quoted by Go's %q or
// encoding/json, and percent-encoded as in a URL.
type Redactor struct {
	secrets []string // as given, at least MinSecretBytes, sorted, unique
	m       *matcher // nil when there is nothing to match
	longest int      // bytes of the longest form matched
}

// New returns a Redactor for the given secrets. Secrets shorter than
// MinSecretBytes are ignored; duplicates are harmless.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if len(s) >= MinSecretBytes {
			r.secrets = append(r.secrets, s)
		}
	}
	slices.Sort(r.secrets)
	r.secrets = slices.Compact(r.secrets)
	if len(r.secrets) == 0 {
		return r
	}
	patterns := make([]string, 0, 2*len(r.secrets))
	for _, s := range r.secrets {
		patterns = append(patterns, secretForms(s)...)
	}
	slices.Sort(patterns)
	r.m = newMatcher(slices.Compact(patterns))
	for _, p := range patterns {
		r.longest = max(r.longest, len(p))
	}
	return r
}

// Lookahead is how far past a cut a secret that starts before the cut can
// reach: one less than the longest form the Redactor matches, or 0. Text
// that is cut at n bytes must keep n+Lookahead bytes until it has been
// redacted, or a secret straddling the cut would leave its first bytes in
// the clear.
func (r *Redactor) Lookahead() int {
	if r == nil || r.longest == 0 {
		return 0
	}
	return r.longest - 1
}

// With returns a new Redactor that removes r's secrets and the given ones.
// r itself is unchanged. A nil r is treated as empty.
func (r *Redactor) With(secrets ...string) *Redactor {
	if r == nil {
		return New(secrets...)
	}
	return New(append(slices.Clip(r.secrets), secrets...)...)
}

// Redact returns text with every secret replaced by Mark, cut to at
// most MaxBytes (on a UTF-8 boundary, ending in "…"). Secrets are
// found in the whole text before it is cut, so a secret straddling the cut
// never leaves its first bytes behind. Text without secrets that fits is
// returned as is, without allocating.
func (r *Redactor) Redact(text string) string {
	return r.RedactCut(text, MaxBytes)
}

// RedactCut is Redact with a tighter bound: the result is at most limit
// bytes (at most MaxBytes; a limit below len("…") is raised to
// it). Secrets are found before the cut, as in Redact.
func (r *Redactor) RedactCut(text string, limit int) string {
	limit = min(max(limit, len(truncationMark)), MaxBytes)
	var spans []span
	if r != nil && r.m != nil {
		var buf [8]span
		spans = r.m.find(text, buf[:0])
	}
	if len(spans) == 0 {
		return boundTo(text, limit)
	}
	var b strings.Builder
	b.Grow(min(len(text), limit+len(Mark)))
	// write copies s, or as much of it as can still show, and reports
	// whether there is room for more. Output past the bound is cut by
	// boundTo below; stopping early only saves copying a huge line.
	write := func(s string) bool {
		room := limit + 1 - b.Len()
		b.WriteString(s[:min(len(s), max(room, 0))])
		return b.Len() <= limit
	}
	prev := 0
	for _, sp := range spans {
		if !write(text[prev:sp.start]) || !write(Mark) {
			return boundTo(b.String(), limit)
		}
		prev = sp.end
	}
	write(text[prev:])
	return boundTo(b.String(), limit)
}

// RedactAll is Redact without the bound, for text that other rules bound
// already (a catalog item's description may hold 64 KiB): every secret
// replaced by Mark, nothing cut. Text without secrets is returned as is.
func (r *Redactor) RedactAll(text string) string {
	if r == nil || r.m == nil {
		return text
	}
	var buf [8]span
	spans := r.m.find(text, buf[:0])
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	prev := 0
	for _, sp := range spans {
		b.WriteString(text[prev:sp.start])
		b.WriteString(Mark)
		prev = sp.end
	}
	b.WriteString(text[prev:])
	return b.String()
}

// boundTo cuts s to limit bytes, marking the cut.
func boundTo(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit - len(truncationMark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + truncationMark
}

// secretForms lists a secret and the escaped forms in which it shows up in
// messages when it holds quotes, backslashes, control characters or
// characters that URLs escape (base64's "+/=", for instance).
func secretForms(s string) []string {
	forms := []string{s}
	add := func(f string) {
		if len(f) >= MinSecretBytes && !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	if q := strconv.Quote(s); len(q) != len(s)+2 {
		add(q[1 : len(q)-1])
	}
	if j, err := json.Marshal(s); err == nil && len(j) != len(s)+2 {
		add(string(j[1 : len(j)-1]))
	}
	add(url.QueryEscape(s))
	add(url.PathEscape(s))
	return forms
}

// MaxTextBytes bounds every text mcpvisor builds from its input: a
// diagnostic, an invalid entry's reason, a warning or an error. Config
// files and servers are free to hold an 8 KiB server name or a megabyte
// stderr line; what mcpvisor says about them stays readable and cheap to
// carry in an event.
const MaxTextBytes = MaxBytes

// Bound cuts s to MaxTextBytes on a UTF-8 boundary, ending in "…" when
// cut. Text that fits is returned as is.
func Bound(s string) string { return boundTo(s, MaxBytes) }
