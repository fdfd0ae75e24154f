package redact

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// naiveSpans is the reference for matcher.find: mark every byte covered by
// any occurrence of any pattern, then read off the runs of marked bytes.
func naiveSpans(patterns []string, text string) []span {
	covered := make([]bool, len(text))
	for _, p := range patterns {
		if p == "" {
			continue
		}
		for i := 0; i+len(p) <= len(text); i++ {
			if text[i:i+len(p)] == p {
				for j := i; j < i+len(p); j++ {
					covered[j] = true
				}
			}
		}
	}
	var out []span
	for i := 0; i < len(text); {
		if !covered[i] {
			i++
			continue
		}
		j := i
		for j < len(text) && covered[j] {
			j++
		}
		out = append(out, span{i, j})
		i = j
	}
	return out
}

func TestMatcher_AgainstNaive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		patterns []string
		text     string
	}{
		{[]string{"he", "she", "his", "hers"}, "ushers and his shell"},
		{[]string{"abcd", "cdefgh"}, "xabcdefghx"},
		{[]string{"aaaa"}, "aaaaaaaaa"},
		{[]string{"abab", "baba"}, "abababab"},
		{[]string{"aab", "ab", "b"}, "aaab"},
		{[]string{"xyz"}, ""},
		{[]string{"a", "b"}, "abba cab"},
	}
	for _, tt := range tests {
		m := newMatcher(tt.patterns)
		if diff := cmp.Diff(naiveSpans(tt.patterns, tt.text), m.find(tt.text, nil), cmp.AllowUnexported(span{})); diff != "" {
			t.Errorf("find(%q) with %q (-naive +matcher):\n%s", tt.text, tt.patterns, diff)
		}
	}
}

// FuzzRedact checks the automaton against the naive reference and the
// output bounds, with up to three secrets cut from the fuzz input.
func FuzzRedact(f *testing.F) {
	f.Add("abcd", "cdefgh", "", "xabcdefghx")
	f.Add("aaaa", "aaaaa", "aa", "aaaaaaaaaaaaa")
	f.Add(`p"q\r`, "a+b/c==", "пароль", `"p\"q\\r" a%2Bb%2Fc%3D%3D пароль`)
	f.Add("toke", "token-long", "en-l", "token-long token toke")
	f.Fuzz(func(t *testing.T, s1, s2, s3, text string) {
		r := New(s1, s2, s3)
		var patterns []string
		for _, s := range r.secrets {
			patterns = append(patterns, secretForms(s)...)
		}
		var got []span
		if r.m != nil {
			got = r.m.find(text, nil)
		}
		if diff := cmp.Diff(naiveSpans(patterns, text), got, cmp.AllowUnexported(span{})); diff != "" {
			t.Fatalf("find(%q) with %q (-naive +matcher):\n%s", text, patterns, diff)
		}
		out := r.Redact(text)
		if len(out) > MaxBytes {
			t.Fatalf("output is %d bytes", len(out))
		}
		if utf8.ValidString(text) && !utf8.ValidString(out) {
			for _, s := range r.secrets {
				if !utf8.ValidString(s) {
					return // a binary secret may split a rune of the text
				}
			}
			t.Fatalf("valid input %q gave invalid output %q", text, out)
		}
		if len(got) == 0 && len(text) <= MaxBytes && out != text {
			t.Fatalf("text without secrets changed: %q → %q", text, out)
		}
		if len(got) > 0 && !strings.Contains(out, Mark[:1]) {
			t.Fatalf("secrets found but no mark in %q", out)
		}
	})
}
