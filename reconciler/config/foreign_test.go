package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// Fields of other tools are recognised: ignored with a note (no warning),
// or mapped onto mcpvisor's own field when it can honour their meaning.
// mcpvisor's own field wins over a mapped one, with a warning.
func TestParseFile_FieldsOfOtherTools(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, entry string
		want              messages.ServerSpec // Name, Source and Fingerprint are not compared
		notes, warnings   []string
	}{
		{
			name: "ignored fields note", path: "/u/cline_mcp_settings.json",
			entry: `{"command": "x", "alwaysAllow": ["a"], "autoApprove": [], "transportType": "stdio", "_comment": "c", "note": "n", "dev": {}, "gallery": true, "version": "1", "description": "d", "comment": "c", "_note": "n"}`,
			want:  messages.ServerSpec{Transport: messages.TransportStdio, Command: "x"},
			notes: []string{`"alwaysAllow" of Cline and Roo is ignored`, `"autoApprove" of Cline, Roo, Kiro and Amazon Q`, `"transportType" of Cline`, `comment field "_comment"`,
				`comment field "note"`, `"dev" of VS Code`, `"gallery" of VS Code`, `"version" of VS Code`, `"description" of VS Code`, `comment field "comment"`, `comment field "_note"`},
		},
		{
			name: "disabledTools is denyTools", path: "/u/mcp_settings.json",
			entry: `{"command": "x", "disabledTools": ["rm"]}`,
			want:  messages.ServerSpec{Transport: messages.TransportStdio, Command: "x", DenyTools: []string{"rm"}},
		},
		{
			name: "denyTools wins over disabledTools", path: "/u/mcp.json",
			entry:    `{"command": "x", "denyTools": ["a"], "disabledTools": ["b"]}`,
			want:     messages.ServerSpec{Transport: messages.TransportStdio, Command: "x", DenyTools: []string{"a"}},
			warnings: []string{"denyTools and disabledTools both given: denyTools is used"},
		},
		{
			name: "Copilot tools is allowTools", path: "/p/.vscode/mcp.json",
			entry: `{"command": "x", "tools": ["read", "list"]}`,
			want:  messages.ServerSpec{Transport: messages.TransportStdio, Command: "x", AllowTools: []string{"read", "list"}},
		},
		{
			name: "Copilot tools star is every tool", path: "/p/.vscode/mcp.json",
			entry: `{"command": "x", "tools": ["*"]}`,
			want:  messages.ServerSpec{Transport: messages.TransportStdio, Command: "x"},
		},
		{
			name: "Cline timeout is seconds", path: "/u/cline_mcp_settings.json",
			entry: `{"command": "x", "timeout": 90}`,
			want:  messages.ServerSpec{Transport: messages.TransportStdio, Command: "x", CallTimeout: 90 * time.Second},
		},
		{
			name: "Gemini timeout is milliseconds", path: "/h/.gemini/settings.json",
			entry: `{"command": "x", "timeout": 30000}`,
			want:  messages.ServerSpec{Transport: messages.TransportStdio, Command: "x", CallTimeout: 30 * time.Second},
		},
		{
			name: "Gemini httpUrl is streamable HTTP", path: "/h/.gemini/settings.json",
			entry: `{"httpUrl": "https://h.example/mcp"}`,
			want:  messages.ServerSpec{Transport: messages.TransportHTTP, URL: "https://h.example/mcp"},
		},
		{
			name: "Gemini url is HTTP+SSE", path: "/h/.gemini/settings.json",
			entry: `{"url": "https://h.example/sse"}`,
			want:  messages.ServerSpec{Transport: messages.TransportSSE, URL: "https://h.example/sse"},
		},
		{
			name: "untyped url in a Claude Code project file warns", path: "/p/.mcp.json",
			entry:    `{"url": "https://h.example/mcp"}`,
			want:     messages.ServerSpec{Transport: messages.TransportHTTP, URL: "https://h.example/mcp"},
			warnings: []string{`rejected by Claude Code in .mcp.json`},
		},
		{
			name: "truly unknown fields still warn", path: "/u/mcp.json",
			entry:    `{"command": "x", "autoApprov": []}`,
			want:     messages.ServerSpec{Transport: messages.TransportStdio, Command: "x"},
			warnings: []string{`unknown field "autoApprov" is ignored`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := config.ParseFile(tt.path, []byte(`{"mcpServers": {"s": `+tt.entry+`}}`), testOpts())
			if len(got.Servers) != 1 {
				t.Fatalf("not valid: %s", formatDiags(got.Diagnostics))
			}
			ignore := cmpopts.IgnoreFields(messages.ServerSpec{}, "Name", "Source", "Fingerprint", "Prefix")
			if diff := cmp.Diff(tt.want, got.Servers[0], ignore); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			matchAll(t, "warning", tt.warnings, got.Diagnostics)
			var ignored []messages.Diagnostic // mapped fields have notes too
			for _, n := range got.Notes {
				if strings.HasSuffix(n.Message, "is ignored") {
					ignored = append(ignored, n)
				}
			}
			matchAll(t, "note", tt.notes, ignored)
		})
	}
}

// matchAll checks that each diagnostic contains its fragment, in order.
func matchAll(t *testing.T, what string, want []string, got []messages.Diagnostic) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%d %ss, want %d:\n%s", len(got), what, len(want), formatDiags(got))
	}
	for i, d := range got {
		if !strings.Contains(d.Message, want[i]) {
			t.Errorf("%s %d: %q does not contain %q", what, i, d.Message, want[i])
		}
	}
}

// A mapped timeout that is not a positive number of its unit is an error.
func TestParseFile_ForeignTimeoutMustBeANumber(t *testing.T) {
	t.Parallel()
	for _, v := range []string{`"30s"`, `0`, `-1`, `true`} {
		got := config.ParseFile("/u/mcp.json", []byte(`{"mcpServers": {"s": {"command": "x", "timeout": `+v+`}}}`), testOpts())
		if len(got.Invalid) != 1 || !strings.Contains(got.Invalid[0].Reason, "timeout must be a positive number of seconds") {
			t.Errorf("timeout %s: %s", v, formatDiags(got.Diagnostics))
		}
	}
}

// A bare $VAR in an env value gets a "did you mean ${VAR}?" warning; a
// command with spaces that names no file gets one that suggests args. A
// literal $$ and a command whose path exists are left alone.
func TestParseFile_HintsForLikelyMistakes(t *testing.T) {
	t.Parallel()
	opts := testOpts()
	opts.FileExists = func(p string) bool { return p == "/opt/My Tools/srv" }
	src := `{"mcpServers": {
  "a": {"command": "node index.js --port 1", "env": {"KEY": "$API_KEY", "OK": "$$HOME ${TOKEN}"}},
  "b": {"command": "/opt/My Tools/srv"}
}}`
	got := config.ParseFile("/u/mcp.json", []byte(src), opts)
	if len(got.Servers) != 2 {
		t.Fatalf("%s", formatDiags(got.Diagnostics))
	}
	matchAll(t, "warning", []string{
		`command contains spaces and names no file: commands are not split by a shell; put the program in command and the rest in args: "command": "node", "args": [3 more]`,
		`env.KEY: "$API_KEY" is passed to the server as written (mcpvisor expands only ${NAME}): did you mean "${API_KEY}"?`,
	}, got.Diagnostics)
}

// Claude Code's ~/.claude.json: the servers it keeps for the project
// directory are read too, and win over the user's of the same name.
func TestParseFile_ClaudeProjectServers(t *testing.T) {
	t.Parallel()
	src := `{"numStartups": 3, "mcpServers": {"db": {"command": "user-db"}, "mine": {"command": "m"}},
	  "projects": {"/home/ada/proj": {"allowedTools": [], "mcpServers": {"db": {"command": "proj-db"}}},
	               "/home/ada/other": {"mcpServers": {"x": {"command": "x"}}}}}`
	opts := testOpts()
	opts.ProjectDir = "/home/ada/proj/"
	got := config.ParseFile("/home/ada/.claude.json", []byte(src), opts)
	cmds := map[string]string{}
	for _, s := range got.Servers {
		cmds[s.Name] = s.Command
	}
	if diff := cmp.Diff(map[string]string{"db": "proj-db", "mine": "m"}, cmds); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	matchAll(t, "warning", []string{`server "db" is shadowed by this project's server`}, got.Diagnostics)
	opts.ProjectDir = ""
	if got := config.ParseFile("/home/ada/.claude.json", []byte(src), opts); len(got.Servers) != 2 || got.Servers[0].Command != "user-db" {
		t.Errorf("without a project: %+v", got.Servers)
	}
}
