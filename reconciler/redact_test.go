package reconciler_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

const mark = reconciler.RedactedMark

// TestRedact_SecretKinds: every kind of secret of a spec is removed from
// text that quotes it, alone or embedded.
func TestRedact_SecretKinds(t *testing.T) {
	t.Parallel()
	stdio := messages.ServerSpec{
		Transport: messages.TransportStdio,
		Command:   "postgres-mcp",
		Args:      []string{"--ro", "postgresql://dbuser:db-pass-77@localhost:5432/app"},
		Env: map[string]string{
			"GITHUB_TOKEN": "ghp_abcdef123456",
			"AUTH":         "Bearer env-bearer-cred",
			"SHORT":        "abc",
		},
	}
	remote := messages.ServerSpec{
		Transport: messages.TransportHTTP,
		URL:       "https://alice:s3cr3t-pw@mcp.example.com/v1/tenant-9f8e/mcp?api_key=key-0123&sig=a%2Bb%3D%3D&x=1",
		Headers: map[string]string{
			"Authorization": "Bearer hdr-token-xyz",
			"X-Basic":       "Basic dXNlcjpwYXNz",
			"X-Api-Key":     "apikey-777",
		},
	}
	tests := []struct {
		name string
		spec messages.ServerSpec
		text string
		want string
	}{
		{"env value", stdio, "auth failed for ghp_abcdef123456!", "auth failed for " + mark + "!"},
		{"env value as a whole", stdio, "AUTH=Bearer env-bearer-cred", "AUTH=" + mark},
		{"credential after Bearer in env", stdio, "token env-bearer-cred rejected", "token " + mark + " rejected"},
		{"env value below the floor stays", stdio, "abc is fine", "abc is fine"},
		{"password in a connection string arg", stdio, "connect failed: password db-pass-77 wrong", "connect failed: password " + mark + " wrong"},
		{"user info in a connection string arg", stdio, "postgresql://dbuser:db-pass-77@localhost", "postgresql://" + mark + "@localhost"},
		{"header value", remote, "sent X-Api-Key: apikey-777", "sent X-Api-Key: " + mark},
		{"bearer credential alone", remote, `{"error":"invalid token hdr-token-xyz"}`, `{"error":"invalid token ` + mark + `"}`},
		{"bearer header whole", remote, "Authorization: Bearer hdr-token-xyz", "Authorization: " + mark},
		{"basic credential", remote, "basic creds dXNlcjpwYXNz", "basic creds " + mark},
		{"url user name", remote, "user alice denied", "user " + mark + " denied"},
		{"url password", remote, "pw s3cr3t-pw", "pw " + mark},
		{"url user info", remote, "alice:s3cr3t-pw", mark},
		{"url query value", remote, "bad key key-0123", "bad key " + mark},
		{"url query value decoded", remote, "sig a+b== invalid", "sig " + mark + " invalid"},
		{"url query value raw", remote, "sig=a%2Bb%3D%3D", "sig=" + mark},
		{"url query value below the floor stays", remote, "x=1", "x=1"},
		{"url path", remote, "404 for /v1/tenant-9f8e/mcp", "404 for " + mark},
		{
			name: "the url itself",
			spec: remote,
			text: "POST " + remote.URL + ": 500",
			want: "POST https://" + mark + "@mcp.example.com" + mark + "?api_key=" + mark + "&sig=" + mark + "&x=1: 500",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := reconciler.NewRedactor(reconciler.SecretsOf(tt.spec)...)
			if diff := cmp.Diff(tt.want, r.Redact(tt.text)); diff != "" {
				t.Errorf("Redact (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSecretsOf(t *testing.T) {
	t.Parallel()
	spec := messages.ServerSpec{
		URL:     "https://u:p@h.example/p?a=1&b=x%20y",
		Env:     map[string]string{"A": "Token tk", "B": "plain"},
		Headers: map[string]string{"H": "bearer  hv "},
		Args:    []string{"--x", "mysql://root:rootpw@db/x", "https://no-creds.example/?q=1"},
	}
	want := []string{
		"/p",          // url path
		"/x",          // connection string path
		"1",           // url query value
		"Token tk",    // env value
		"bearer  hv ", // header value, exactly as sent
		"hv",          // its credential, trimmed
		"p",           // url password
		"plain",       // env value
		"root",        // connection string user
		"root:rootpw", // connection string user info
		"rootpw",      // connection string password
		"tk",          // env credential
		"u",           // url user
		"u:p",         // url user info
		"x y",         // url query value, decoded
		"x%20y",       // url query value, raw
	}
	if diff := cmp.Diff(want, reconciler.SecretsOf(spec)); diff != "" {
		t.Errorf("SecretsOf (-want +got):\n%s", diff)
	}
}

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
			r := reconciler.NewRedactor(tt.secrets...)
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
	const limit = reconciler.MaxRedactedBytes
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
	r := reconciler.NewRedactor(secret)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, red := range []*reconciler.Redactor{r, nil, {}} {
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
	r := reconciler.NewRedactor("secret-one", "secret-two", "Bearer x")
	line := "2024-05-01T10:00:00Z INFO listening on 127.0.0.1:8080 with 12 tools"
	if n := testing.AllocsPerRun(100, func() { _ = r.Redact(line) }); n != 0 {
		t.Errorf("Redact allocated %v times for a line without secrets", n)
	}
}

func TestRedactor_With(t *testing.T) {
	t.Parallel()
	base := reconciler.NewRedactor("first-secret")
	more := base.With("second-secret", "ab")
	text := "first-secret second-secret ab"
	if diff := cmp.Diff("[redacted] second-secret ab", base.Redact(text)); diff != "" {
		t.Errorf("base after With (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("[redacted] [redacted] ab", more.Redact(text)); diff != "" {
		t.Errorf("With (-want +got):\n%s", diff)
	}
	var nilRedactor *reconciler.Redactor
	if diff := cmp.Diff("[redacted]", nilRedactor.With("only-secret").Redact("only-secret")); diff != "" {
		t.Errorf("nil.With (-want +got):\n%s", diff)
	}
}

// TestRedactor_ConcurrentUse: one Redactor serves every session actor.
func TestRedactor_ConcurrentUse(t *testing.T) {
	t.Parallel()
	r := reconciler.NewRedactor("concurrent-secret", "other-secret")
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
	r := reconciler.NewRedactor("s3cr3t-value", "a b\"c")
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
	if got := (*reconciler.Redactor)(nil).RedactCut(strings.Repeat("é", 10), 7); got != "éé…" {
		t.Errorf("nil redactor cut = %q, want %q", got, "éé…")
	}
	if (*reconciler.Redactor)(nil).Lookahead() != 0 {
		t.Error("nil redactor has a lookahead")
	}
}

// Credentials written literally in args are secrets, as env and header
// values are: they used to show in stderr tails and events.
func TestSecretsOf_CredentialsInArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string // each must be listed
		not  []string // none may be
	}{
		{args: []string{"-H", "Authorization: Bearer tok-bearer-1"}, want: []string{"tok-bearer-1"}, not: []string{"Authorization:"}},
		{args: []string{"--header", "Bearer", "tok-bearer-2"}, want: []string{"tok-bearer-2"}},
		{args: []string{"basic dXNlcjpwdw==", "token ghp_abcdef"}, want: []string{"dXNlcjpwdw==", "ghp_abcdef"}},
		{args: []string{"--api-key", "key-value-1", "--verbose"}, want: []string{"key-value-1"}, not: []string{"--verbose"}},
		{args: []string{"--api-key=key-value-2", "--auth-token=tv-2", "--db-password=pw-2", "--client-secret", "cs-2"}, want: []string{"key-value-2", "tv-2", "pw-2", "cs-2"}},
		{args: []string{"--token", "--verbose"}, not: []string{"--verbose"}},
		{args: []string{"-e", "GITHUB_TOKEN=ghp_env_1", "-e", "MODE=fast"}, want: []string{"ghp_env_1"}, not: []string{"fast"}},
		{args: []string{"https://api.example.com/v1/abc-path?api_key=qv-1&x=qv-2"}, want: []string{"/v1/abc-path", "qv-1", "qv-2"}},
		{args: []string{"--url=https://h.example/hook/p-secret?k=qv-3"}, want: []string{"/hook/p-secret", "qv-3"}},
		{args: []string{"postgres://app:dbpw-1@db/x"}, want: []string{"dbpw-1", "app:dbpw-1"}},
		{args: []string{"--verbose", "serve", "file:///home/ada/project", "--port", "8080", "keyboard"}, not: []string{"/home/ada/project", "8080", "serve"}},
	}
	for _, tt := range tests {
		got := reconciler.SecretsOf(messages.ServerSpec{Command: "x", Args: tt.args})
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("args %q: secrets %q lack %q", tt.args, got, w)
			}
		}
		for _, n := range tt.not {
			if slices.Contains(got, n) {
				t.Errorf("args %q: secrets %q include %q, which is not one", tt.args, got, n)
			}
		}
	}
}
