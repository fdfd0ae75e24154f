package redact_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

const mark = redact.Mark

// TestRedact_Matching covers how secrets are found and replaced.
func TestRedact_Matching(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		secrets []string
		text    string
		want    string
	}{
		{"no secrets", nil, "hello", "hello"},
		{"floor: 3 bytes ignored", []string{"abc"}, "abc abcd", "abc abcd"},
		{"floor: 4 bytes redacted", []string{"abcd"}, "abc abcd", "abc " + mark},
		{"empty secret ignored", []string{""}, "text", "text"},
		{"every occurrence", []string{"s3cr"}, "s3cr-s3cr s3crs3cr", mark + "-" + mark + " " + mark},
		{"longest wins at one position", []string{"toke", "token-long"}, "a token-long b", "a " + mark + " b"},
		{"a secret inside another", []string{"secret-value", "ret-v"}, "x ret-v secret-value", "x " + mark + " " + mark},
		{
			// Greedy left-to-right replacement would replace "abcd" and
			// leave "efgh" of the second secret in the clear.
			name: "overlapping secrets leave nothing behind", secrets: []string{"abcd", "cdefgh"},
			text: "xabcdefghx", want: "x" + mark + "x",
		},
		{"adjacent secrets become one mark", []string{"aaaa", "bbbb"}, "aaaabbbb", mark},
		{"duplicates are harmless", []string{"dupe", "dupe"}, "dupe", mark},
		{"case matters", []string{"Token"}, "token Token", "token " + mark},
		{"quoted by %q", []string{`pa"ss\word`}, fmt.Sprintf("bad password %q", `pa"ss\word`), `bad password "` + mark + `"`},
		{"json escaped", []string{"<tag>&"}, `{"v":"\u003ctag\u003e\u0026"}`, `{"v":"` + mark + `"}`},
		{"percent-encoded", []string{"a+b/c=="}, "GET /?k=a%2Bb%2Fc%3D%3D", "GET /?k=" + mark},
		{"multibyte secrets", []string{"пароль"}, "пароль: пароль", mark + ": " + mark},
		{"binary secrets", []string{"\x00\xff\x00\xff"}, "a\x00\xff\x00\xffb", "a" + mark + "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := redact.New(tt.secrets...)
			if diff := cmp.Diff(tt.want, r.Redact(tt.text)); diff != "" {
				t.Errorf("Redact (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRedact_Bound: output is at most 4096 bytes, cut on a UTF-8 boundary
// with a visible mark, and a secret straddling the cut leaves nothing.
func TestRedact_Bound(t *testing.T) {
	t.Parallel()
	const limit = redact.MaxBytes
	secret := "straddling-secret"
	tests := []struct {
		name string
		text string
		want string // the last 40 bytes of the output
	}{
		{"short text is untouched", "short", "short"},
		{"exactly the bound is untouched", strings.Repeat("a", limit), strings.Repeat("a", 40)},
		{"one byte over is cut", strings.Repeat("a", limit+1), strings.Repeat("a", 37) + "…"},
		{"a megabyte is cut", strings.Repeat("b", 1<<20), strings.Repeat("b", 37) + "…"},
		{"cut on a rune boundary", strings.Repeat("é", limit), strings.Repeat("é", 18) + "a…"[1:]},
		{"a secret at the cut leaves no prefix", strings.Repeat("c", limit-8) + secret + "tail", strings.Repeat("c", 40-(len(mark)-5)-3) + mark[:len(mark)-5] + "…"},
		{"many secrets", strings.Repeat(secret+" ", 1000), ""},
	}
	r := redact.New(secret)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, red := range []*redact.Redactor{r, nil, {}} {
				got := red.Redact(tt.text)
				if len(got) > limit {
					t.Fatalf("output is %d bytes, want at most %d", len(got), limit)
				}
				if utf8.ValidString(tt.text) && !utf8.ValidString(got) {
					t.Fatalf("output is not valid UTF-8")
				}
				if red == r && strings.Contains(got, secret[:6]) {
					t.Fatalf("output shows part of the secret: ...%s", got[max(0, len(got)-60):])
				}
			}
			got := r.Redact(tt.text)
			if tt.want != "" && !strings.HasSuffix(got, tt.want) {
				t.Errorf("output ends %q, want it to end %q", got[max(0, len(got)-40):], tt.want)
			}
		})
	}
}

// TestRedact_NoSecretsNoAllocation: Redact runs on every stderr line; the
// common case of a line without secrets must not allocate.
func TestRedact_NoSecretsNoAllocation(t *testing.T) {
	r := redact.New("secret-one", "secret-two", "Bearer x")
	line := "2024-05-01T10:00:00Z INFO listening on 127.0.0.1:8080 with 12 tools"
	if n := testing.AllocsPerRun(100, func() { _ = r.Redact(line) }); n != 0 {
		t.Errorf("Redact allocated %v times for a line without secrets", n)
	}
}

func TestRedactor_With(t *testing.T) {
	t.Parallel()
	base := redact.New("first-secret")
	more := base.With("second-secret", "ab")
	text := "first-secret second-secret ab"
	if diff := cmp.Diff("[redacted] second-secret ab", base.Redact(text)); diff != "" {
		t.Errorf("base after With (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("[redacted] [redacted] ab", more.Redact(text)); diff != "" {
		t.Errorf("With (-want +got):\n%s", diff)
	}
	var nilRedactor *redact.Redactor
	if diff := cmp.Diff("[redacted]", nilRedactor.With("only-secret").Redact("only-secret")); diff != "" {
		t.Errorf("nil.With (-want +got):\n%s", diff)
	}
}

// TestRedactor_ConcurrentUse: one Redactor serves every session actor.
func TestRedactor_ConcurrentUse(t *testing.T) {
	t.Parallel()
	r := redact.New("concurrent-secret", "other-secret")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				text := fmt.Sprintf("%d/%d concurrent-secret other-secret", i, j)
				want := fmt.Sprintf("%d/%d %s %s", i, j, mark, mark)
				if got := r.Redact(text); got != want {
					t.Errorf("Redact = %q, want %q", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// RedactCut finds secrets before it cuts, at any bound; Lookahead says how
// much text past a cut must be kept for that.
func TestRedactor_RedactCut(t *testing.T) {
	t.Parallel()
	r := redact.New("s3cr3t-value", "a b\"c")
	if got, want := r.Lookahead(), len(`a b\"c`)+5; got < len("s3cr3t-value")-1 || got > want+10 {
		t.Fatalf("Lookahead = %d, want about the longest form's length", got)
	}
	text := "0123456789s3cr3t-value tail"
	for limit := 4; limit <= len(text)+1; limit++ {
		got := r.RedactCut(text, limit)
		if len(got) > limit || strings.Contains(got, "s3cr") {
			t.Errorf("RedactCut(limit %d) = %q", limit, got)
		}
	}
	if got := (*redact.Redactor)(nil).RedactCut(strings.Repeat("é", 10), 7); got != "éé…" {
		t.Errorf("nil redactor cut = %q, want %q", got, "éé…")
	}
	if (*redact.Redactor)(nil).Lookahead() != 0 {
		t.Error("nil redactor has a lookahead")
	}
}
