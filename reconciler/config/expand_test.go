package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// TestParseFile_ExpansionForms covers each expansion form in each field that
// expands. testOpts sets TOKEN=tok-1234, HOST=api.example.com, EMPTY="" and
// DIR=/srv/tools, with home /home/ada.
func TestParseFile_ExpansionForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		entry string
		want  messages.ServerSpec
	}{
		{
			name:  "braced variable in command, args, env and cwd",
			entry: `{"command": "${DIR}/srv", "args": ["--token=${TOKEN}", "${HOST}"], "env": {"T": "${TOKEN}"}, "cwd": "${DIR}"}`,
			want: messages.ServerSpec{Command: "/srv/tools/srv", Args: []string{"--token=tok-1234", "api.example.com"},
				Env: map[string]string{"T": "tok-1234"}, Cwd: "/srv/tools"},
		},
		{
			name:  "variable in url and header values",
			entry: `{"url": "https://${HOST}/mcp?k=${TOKEN}", "headers": {"Authorization": "Bearer ${TOKEN}"}}`,
			want: messages.ServerSpec{Transport: messages.TransportHTTP, URL: "https://api.example.com/mcp?k=tok-1234",
				Headers: map[string]string{"Authorization": "Bearer tok-1234"}},
		},
		{
			name:  "env: prefix as vs code writes it",
			entry: `{"command": "x", "args": ["${env:TOKEN}", "${env:NOPE:-d}"]}`,
			want:  messages.ServerSpec{Command: "x", Args: []string{"tok-1234", "d"}},
		},
		{
			name:  "default when unset, when empty, and not when set",
			entry: `{"command": "x", "args": ["${NOPE:-dflt}", "${EMPTY:-dflt}", "${TOKEN:-dflt}", "${NOPE:-}"]}`,
			want:  messages.ServerSpec{Command: "x", Args: []string{"dflt", "dflt", "tok-1234", ""}},
		},
		{
			name:  "a set but empty variable without default is empty, not an error",
			entry: `{"command": "x", "args": ["a${EMPTY}b"]}`,
			want:  messages.ServerSpec{Command: "x", Args: []string{"ab"}},
		},
		{
			name:  "defaults are literal",
			entry: `{"command": "x", "args": ["${NOPE:-${TOKEN}", "${NOPE:-a b:-c $$}"]}`,
			want:  messages.ServerSpec{Command: "x", Args: []string{"${TOKEN", "a b:-c $$"}},
		},
		{
			name:  "dollar escapes and lone dollars",
			entry: `{"command": "x", "args": ["$$", "$${TOKEN}", "$HOME", "cost: 5$", "$", "a$$$${HOST}"]}`,
			want:  messages.ServerSpec{Command: "x", Args: []string{"$", "${TOKEN}", "$HOME", "cost: 5$", "$", "a$${HOST}"}},
		},
		{
			name:  "substituted values are not expanded again",
			entry: `{"command": "x", "args": ["${LOOP}"]}`,
			want:  messages.ServerSpec{Command: "x", Args: []string{"${TOKEN}$$"}},
		},
		{
			name:  "tilde in command and cwd",
			entry: `{"command": "~/bin/srv", "cwd": "~"}`,
			want:  messages.ServerSpec{Command: "/home/ada/bin/srv", Cwd: "/home/ada"},
		},
		{
			name:  "tilde then a variable",
			entry: `{"command": "~/${HOST}/srv", "cwd": "~/${NOPE:-w}"}`,
			want:  messages.ServerSpec{Command: "/home/ada/api.example.com/srv", Cwd: "/home/ada/w"},
		},
		{
			name:  "tilde is literal elsewhere",
			entry: `{"command": "~user/srv", "args": ["~/x"], "env": {"H": "~"}, "cwd": "a~"}`,
			want:  messages.ServerSpec{Command: "~user/srv", Args: []string{"~/x"}, Env: map[string]string{"H": "~"}, Cwd: "/proj/a~"},
		},
		{
			name:  "a variable expanding to a tilde stays literal",
			entry: `{"command": "${TILDE}/srv"}`,
			want:  messages.ServerSpec{Command: "~/srv"},
		},
		{
			name:  "names, env keys and tool lists do not expand",
			entry: `{"command": "x", "env": {"${TOKEN}": "v"}, "allowTools": ["${TOKEN}"]}`,
			want:  messages.ServerSpec{Command: "x", Env: map[string]string{"${TOKEN}": "v"}, AllowTools: []string{"${TOKEN}"}},
		},
	}
	opts := testOpts()
	base := opts.LookupEnv
	opts.LookupEnv = func(name string) (string, bool) {
		switch name {
		case "LOOP":
			return "${TOKEN}$$", true
		case "TILDE":
			return "~", true
		}
		return base(name)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := onlyServer(t, `{"mcpServers": {"s": `+tt.entry+`}}`, opts)
			want := tt.want
			want.Name, want.Source = "s", at(1, 17)
			if want.Transport == "" {
				want.Transport = messages.TransportStdio
			}
			if diff := cmp.Diff(want, got, ignoreFingerprint); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseFile_ExpansionErrors: a reference that cannot be expanded makes
// its entry invalid, with the diagnostic at the "$" that starts it (escapes
// earlier in the string counted as the bytes they are in the file), and a
// reason that names the variable, the file, the line and the column.
func TestParseFile_ExpansionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		entry  string // on line 2, starting at column 8
		diag   diag
		reason string
	}{
		{
			name:   "unset variable in command",
			entry:  `{"command": "${NOPE}"}`,
			diag:   diag{2, 21, messages.SeverityError, `server "s": command: variable NOPE is not set`},
			reason: testPath + ":2:21: command: variable NOPE is not set: set it in mcpvisor's environment, or give a default with ${NOPE:-default}",
		},
		{
			name:   "unset variable in an arg after text",
			entry:  `{"command": "x", "args": ["a", "--key=${API_KEY}"]}`,
			diag:   diag{2, 46, messages.SeverityError, "args[1]: variable API_KEY is not set"},
			reason: testPath + ":2:46: args[1]: variable API_KEY is not set",
		},
		{
			name:   "after escapes the column is the file's",
			entry:  `{"command": "x", "args": ["\t\u00e9\ud83d\ude00\"${NOPE}"]}`,
			diag:   diag{2, 57, messages.SeverityError, "args[0]: variable NOPE is not set"},
			reason: testPath + ":2:57: args[0]: variable NOPE",
		},
		{
			name:   "after multibyte characters the column counts bytes",
			entry:  `{"command": "x", "args": ["é😀${NOPE}"]}`,
			diag:   diag{2, 41, messages.SeverityError, "variable NOPE is not set"},
			reason: testPath + ":2:41:",
		},
		{
			name:   "env: form names the variable",
			entry:  `{"command": "x", "env": {"K": "${env:GH_TOKEN}"}}`,
			diag:   diag{2, 39, messages.SeverityError, "env.K: variable GH_TOKEN is not set"},
			reason: testPath + ":2:39: env.K: variable GH_TOKEN",
		},
		{
			name:   "unset in cwd",
			entry:  `{"command": "x", "cwd": "~/${WS}"}`,
			diag:   diag{2, 35, messages.SeverityError, "cwd: variable WS is not set"},
			reason: testPath + ":2:35:",
		},
		{
			name:   "unset in url",
			entry:  `{"url": "https://${MCP_HOST}/mcp"}`,
			diag:   diag{2, 25, messages.SeverityError, "url: variable MCP_HOST is not set"},
			reason: testPath + ":2:25:",
		},
		{
			name:   "unset in a header value",
			entry:  `{"url": "https://h/", "headers": {"Authorization": "Bearer ${TOKEN2}"}}`,
			diag:   diag{2, 67, messages.SeverityError, "headers.Authorization: variable TOKEN2 is not set"},
			reason: testPath + ":2:67:",
		},
		{
			name:   "unterminated",
			entry:  `{"command": "x", "args": ["${TOKEN"]}`,
			diag:   diag{2, 35, messages.SeverityError, `unterminated "${"`},
			reason: testPath + ":2:35:",
		},
		{
			name:   "no name",
			entry:  `{"command": "x", "args": ["${}"]}`,
			diag:   diag{2, 35, messages.SeverityError, `must be followed by a variable name`},
			reason: testPath + ":2:35:",
		},
		{
			name:   "name starting with a digit",
			entry:  `{"command": "x", "args": ["${1X}"]}`,
			diag:   diag{2, 35, messages.SeverityError, `must be followed by a variable name`},
			reason: testPath + ":2:35:",
		},
		{
			name:   "a vs code input must be declared",
			entry:  `{"command": "x", "args": ["${input:token}"]}`,
			diag:   diag{2, 35, messages.SeverityError, `input "token" is not declared in the file's top-level "inputs"`},
			reason: testPath + ":2:35:",
		},
		{
			name:   "shell forms other than :- are not supported",
			entry:  `{"command": "x", "args": ["${TOKEN-x}"]}`,
			diag:   diag{2, 35, messages.SeverityError, `unsupported reference "${TOKEN…}": use ${TOKEN}, ${TOKEN:-default} or ${env:TOKEN}`},
			reason: testPath + ":2:35:",
		},
		{
			name:   "tilde without a home directory",
			entry:  `{"command": "~/bin/x"}`,
			diag:   diag{2, 21, messages.SeverityError, `command: cannot expand "~" because the home directory is unknown`},
			reason: testPath + ":2:21:",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := testOpts()
			if strings.Contains(tt.name, "home") {
				opts.Home = ""
			}
			src := "{\"mcpServers\": {\n  \"s\": " + tt.entry + ",\n  \"ok\": {\"command\": \"x\"}}}"
			got := config.ParseFile(testPath, []byte(src), opts)
			checkDiags(t, testPath, got.Diagnostics, []diag{tt.diag})
			if diff := cmp.Diff([]string{"ok"}, names(got.Servers)); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			if len(got.Invalid) != 1 || !strings.HasPrefix(got.Invalid[0].Reason, tt.reason) {
				t.Errorf("invalid = %+v, want one with a reason starting %q", got.Invalid, tt.reason)
			}
		})
	}
}

// TestParseFile_ExpansionErrorsNeverEchoDefaults: an error message quotes
// the variable name only, since defaults and the rest of the string may be
// secrets.
func TestParseFile_ExpansionErrorsNeverEchoDefaults(t *testing.T) {
	t.Parallel()
	src := `{"servers": {"s": {"command": "x", "args": ["sk-live-secret${A:default-secret}", "${B"]}}}`
	got := config.ParseFile(testPath, []byte(src), testOpts())
	if len(got.Diagnostics) == 0 {
		t.Fatal("want diagnostics")
	}
	for _, d := range got.Diagnostics {
		if strings.Contains(d.Message, "secret") {
			t.Errorf("diagnostic echoes config text: %q", d.Message)
		}
	}
	for _, inv := range got.Invalid {
		if strings.Contains(inv.Reason, "secret") {
			t.Errorf("reason echoes config text: %q", inv.Reason)
		}
	}
}

// TestParseFile_NilLookupEnvMeansUnset: an embedder that passes no
// environment gets errors, never empty strings.
func TestParseFile_NilLookupEnvMeansUnset(t *testing.T) {
	t.Parallel()
	got := config.ParseFile(testPath, []byte(`{"servers": {"s": {"command": "${HOME}"}}}`), config.LoadOptions{})
	if diff := cmp.Diff([]string{"s"}, invalidNames(got.Invalid)); diff != "" {
		t.Errorf("invalid (-want +got):\n%s", diff)
	}
}

// ${MCPVISOR_TOKEN} is mcpvisor's own API token: a config file cannot send
// it to a server in any field or form, and it is never even looked up.
func TestParseFile_APITokenIsNeverExpanded(t *testing.T) {
	t.Parallel()
	looked := map[string]bool{}
	opts := config.LoadOptions{Home: "/home/ada", LookupEnv: func(name string) (string, bool) {
		looked[name] = true
		return "api-token-value", true
	}}
	for _, entry := range []string{
		`{"command": "x", "args": ["--token=${MCPVISOR_TOKEN}"]}`,
		`{"command": "x", "env": {"T": "${env:MCPVISOR_TOKEN}"}}`,
		`{"command": "x", "args": ["${MCPVISOR_TOKEN:-none}"]}`,
		`{"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${MCPVISOR_TOKEN}"}}`,
		`{"url": "https://h/${MCPVISOR_TOKEN}"}`,
	} {
		p := config.ParseFile(testPath, []byte(`{"mcpServers": {"s": `+entry+`}}`), opts)
		if len(p.Servers) != 0 || len(p.Invalid) != 1 || !strings.Contains(p.Invalid[0].Reason, "MCPVISOR_TOKEN is mcpvisor's own API token") {
			t.Errorf("%s: servers %+v, invalid %+v, want the entry invalid naming MCPVISOR_TOKEN", entry, p.Servers, p.Invalid)
		}
		for _, d := range p.Diagnostics {
			if strings.Contains(d.Message, "api-token-value") {
				t.Errorf("%s: diagnostic %q shows the token", entry, d.Message)
			}
		}
	}
	if looked["MCPVISOR_TOKEN"] {
		t.Error("MCPVISOR_TOKEN was looked up")
	}
}
