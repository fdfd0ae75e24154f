package config_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

const mark = redact.Mark

// Every kind of secret of a spec (SecretsOf) is removed from
// text that quotes it, alone or embedded.
func TestSecretsOf_RedactedInEveryForm(t *testing.T) {
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
			r := redact.New(config.SecretsOf(tt.spec)...)
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
	if diff := cmp.Diff(want, config.SecretsOf(spec)); diff != "" {
		t.Errorf("SecretsOf (-want +got):\n%s", diff)
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
		got := config.SecretsOf(messages.ServerSpec{Command: "x", Args: tt.args})
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
