package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

func TestParseFile_Formats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		src     string
		ok      bool
		servers []string
		diags   []diag
	}{
		{
			name:    "claude code and cursor style mcpServers",
			src:     `{"mcpServers": {"a": {"command": "x"}}}`,
			ok:      true,
			servers: []string{"a"},
		},
		{
			name:    "vs code style servers",
			src:     `{"servers": {"a": {"type": "stdio", "command": "x"}}}`,
			ok:      true,
			servers: []string{"a"},
		},
		{
			name:    "both keys in one file",
			src:     `{"mcpServers": {"b": {"command": "x"}}, "servers": {"a": {"command": "y"}}}`,
			ok:      true,
			servers: []string{"a", "b"},
		},
		{
			name: "jsonc comments and trailing commas",
			src: `// project servers
{
  /* block */ "mcpServers": {
    "a": {"command": "x", "args": ["1", "2",],}, // trailing
  },
}`,
			ok:      true,
			servers: []string{"a"},
		},
		{
			name:    "utf-8 byte order mark",
			src:     "\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}",
			ok:      true,
			servers: []string{"a"},
		},
		{
			name: "byte order mark keeps columns",
			src:  "\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"x\", \"zz\": 1}}}",
			ok:   true, servers: []string{"a"},
			diags: []diag{{1, 42, messages.SeverityWarning, `unknown field "zz"`}},
		},
		{
			name: "other top-level keys are ignored silently",
			src:  `{"inputs": [], "theme": "dark", "mcpServers": {"a": {"command": "x"}}}`,
			ok:   true, servers: []string{"a"},
		},
		{
			name:  "empty object declares nothing",
			src:   `{}`,
			ok:    true,
			diags: nil,
		},
		{
			name: "null servers declares nothing",
			src:  `{"mcpServers": null}`,
			ok:   true,
		},
		{
			name:  "no servers key",
			src:   `{"theme": "dark"}`,
			ok:    true,
			diags: []diag{{1, 1, messages.SeverityWarning, `no "mcpServers" or "servers" object`}},
		},
		{
			name: "servers key with the wrong case",
			src:  "{\n  \"MCPServers\": {}\n}",
			ok:   true,
			diags: []diag{
				{1, 1, messages.SeverityWarning, `no "mcpServers" or "servers"`},
				{2, 3, messages.SeverityWarning, `did you mean "mcpServers" or "servers"`},
			},
		},
		{
			name:  "empty file",
			src:   "",
			diags: []diag{{1, 1, messages.SeverityWarning, "file is empty"}},
		},
		{
			name:  "whitespace only",
			src:   "  \n\n",
			diags: []diag{{1, 1, messages.SeverityWarning, "file is empty"}},
		},
		{
			name:  "comments only",
			src:   "// everything commented out\n/* {\"mcpServers\": {}} */\n",
			diags: []diag{{1, 1, messages.SeverityWarning, "only comments"}},
		},
		{
			name:  "missing comma",
			src:   "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}",
			diags: []diag{{4, 5, messages.SeverityError, `syntax error: invalid character '"' after object value`}},
		},
		{
			name:  "truncated mid-save",
			src:   "{\n  \"mcpServers\": {\n    \"a\": {\"comm",
			diags: []diag{{3, 16, messages.SeverityError, "unexpected end of file"}},
		},
		{
			name:  "bad literal does not echo the value",
			src:   "{\"mcpServers\": {\"a\": {\"env\": {\"K\": \"sk-secret\tvalue\"}}}}",
			diags: []diag{{1, 36, messages.SeverityError, "invalid string, number or literal"}},
		},
		{
			name:  "top level is an array",
			src:   `[{"command": "x"}]`,
			diags: []diag{{1, 1, messages.SeverityError, "the top level is an array, not an object"}},
		},
		{
			name:  "servers is an array",
			src:   `{"servers": [{"command": "x"}]}`,
			diags: []diag{{1, 13, messages.SeverityError, `"servers" must be an object`}},
		},
		{
			name:  "nesting too deep",
			src:   `{"mcpServers": {"a": {"args": ` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}}}`,
			diags: []diag{{1, 284, messages.SeverityError, "nest more than 256 levels"}},
		},
		{
			name:    "brackets inside strings and comments do not count as nesting",
			src:     `{"mcpServers": {"a": {"command": "x", "args": ["` + strings.Repeat("[", 300) + `"]}}} // ` + strings.Repeat("{", 300) + "\n/* " + strings.Repeat("[", 300) + " */",
			ok:      true,
			servers: []string{"a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := config.ParseFile(testPath, []byte(tt.src), testOpts())
			if got.OK != tt.ok {
				t.Errorf("OK = %v, want %v; diagnostics:\n%s", got.OK, tt.ok, formatDiags(got.Diagnostics))
			}
			if diff := cmp.Diff(tt.servers, names(got.Servers)); diff != "" {
				t.Errorf("servers (-want +got):\n%s\ninvalid: %v", diff, got.Invalid)
			}
			checkDiags(t, testPath, got.Diagnostics, tt.diags)
		})
	}
}

func TestParseFile_FieldsOfStdioServer(t *testing.T) {
	t.Parallel()
	src := `{"mcpServers": {
  "fs": {
    "type": "stdio",
    "command": "npx",
    "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
    "env": {"TOKEN": "abc", "MODE": "ro"},
    "cwd": "/srv",
    "disabled": true,
    "connectTimeout": "45s",
    "callTimeout": "500ms",
    "restart": "never",
    "allowTools": ["read_file", "list_directory"],
    "denyTools": ["write_file"]
  }
}}`
	want := messages.ServerSpec{
		Name:           "fs",
		Transport:      messages.TransportStdio,
		Command:        "npx",
		Args:           []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"},
		Env:            map[string]string{"TOKEN": "abc", "MODE": "ro"},
		Cwd:            "/srv",
		Disabled:       true,
		ConnectTimeout: 45 * time.Second,
		CallTimeout:    500 * time.Millisecond,
		Restart:        messages.RestartNever,
		AllowTools:     []string{"read_file", "list_directory"},
		DenyTools:      []string{"write_file"},
		Source:         at(2, 3),
	}
	got := onlyServer(t, src, testOpts())
	if diff := cmp.Diff(want, got, ignoreFingerprint); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	if len(got.Fingerprint) != 32 {
		t.Errorf("fingerprint %q is not 32 hex characters", got.Fingerprint)
	}
}

func TestParseFile_FieldsOfRemoteServers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want messages.ServerSpec
	}{
		{
			name: "type http",
			src:  `{"servers": {"r": {"type": "http", "url": "https://h.example/mcp", "headers": {"X-Key": "k"}}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportHTTP, URL: "https://h.example/mcp",
				Headers: map[string]string{"X-Key": "k"}, Source: at(1, 14)},
		},
		{
			name: "type streamable-http is http",
			src:  `{"servers": {"r": {"type": "streamable-http", "url": "http://127.0.0.1:8080/mcp"}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportHTTP, URL: "http://127.0.0.1:8080/mcp", Source: at(1, 14)},
		},
		{
			name: "type sse",
			src:  `{"servers": {"r": {"type": "sse", "url": "https://h.example/sse"}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportSSE, URL: "https://h.example/sse", Source: at(1, 14)},
		},
		{
			name: "url without type is streamable http",
			src:  `{"servers": {"r": {"url": "https://h.example/mcp"}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportHTTP, URL: "https://h.example/mcp", Source: at(1, 14)},
		},
		{
			name: "command without type is stdio",
			src:  `{"servers": {"r": {"command": "srv"}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportStdio, Command: "srv", Source: at(1, 14)},
		},
		{
			name: "null fields count as absent",
			src:  `{"servers": {"r": {"command": "srv", "args": null, "env": null, "cwd": null, "type": null, "disabled": null, "url": null}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportStdio, Command: "srv", Source: at(1, 14)},
		},
		{
			name: "empty lists and maps are absent",
			src:  `{"servers": {"r": {"command": "srv", "args": [], "env": {}, "allowTools": []}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportStdio, Command: "srv", Source: at(1, 14)},
		},
		{
			name: "restart on-failure",
			src:  `{"servers": {"r": {"command": "srv", "restart": "on-failure", "disabled": false}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportStdio, Command: "srv", Restart: messages.RestartOnFailure, Source: at(1, 14)},
		},
		{
			name: "lazy with an idle timeout",
			src:  `{"servers": {"r": {"command": "srv", "autostart": "lazy", "idleTimeout": "5m"}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportStdio, Command: "srv", Autostart: messages.AutostartLazy,
				IdleTimeout: 5 * time.Minute, Source: at(1, 14)},
		},
		{
			name: "autostart eager",
			src:  `{"servers": {"r": {"url": "https://h.example/mcp", "autostart": "eager"}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportHTTP, URL: "https://h.example/mcp", Autostart: messages.AutostartEager, Source: at(1, 14)},
		},
		{
			name: "relative cwd resolves against the config file's directory",
			src:  `{"servers": {"r": {"command": "srv", "cwd": "tools/../bin"}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportStdio, Command: "srv", Cwd: "/proj/bin", Source: at(1, 14)},
		},
		{
			name: "escaped strings are decoded",
			src:  `{"servers": {"r": {"command": "C:\\bin\\srv.exe", "args": ["\u00e9\"q\""]}}}`,
			want: messages.ServerSpec{Name: "r", Transport: messages.TransportStdio, Command: `C:\bin\srv.exe`, Args: []string{`é"q"`}, Source: at(1, 14)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := onlyServer(t, tt.src, testOpts())
			if diff := cmp.Diff(tt.want, got, ignoreFingerprint); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseFile_FieldErrors covers every field's type and value errors: each
// makes its entry invalid, with a diagnostic at the offending value.
func TestParseFile_FieldErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		entry string // the value of server "s", on line 1 starting at column 22
		diags []diag
	}{
		{"entry not an object", `"npx"`, []diag{{1, 22, messages.SeverityError, "entry must be an object"}}},
		{"unknown type", `{"type": "websocket", "url": "https://h/"}`, []diag{{1, 31, messages.SeverityError, `type "websocket" is not supported`}}},
		{"type not a string", `{"type": 1, "command": "x"}`, []diag{{1, 31, messages.SeverityError, "type must be a string, not a number"}}},
		{"neither command nor url", `{"args": ["x"]}`, []diag{{1, 17, messages.SeverityError, "needs a command"}}},
		{"command and url", `{"command": "x", "url": "https://h/"}`, []diag{{1, 46, messages.SeverityError, "has both command and url"}}},
		{"stdio with url", `{"type": "stdio", "command": "x", "url": "https://h/"}`, []diag{{1, 63, messages.SeverityError, `url cannot be used with type "stdio"`}}},
		{"stdio without command", `{"type": "stdio"}`, []diag{{1, 31, messages.SeverityError, `type "stdio" needs a command`}}},
		{"http with command", `{"type": "http", "command": "x", "url": "https://h/"}`, []diag{{1, 50, messages.SeverityError, `command cannot be used with type "http"`}}},
		{"sse without url", `{"type": "sse"}`, []diag{{1, 31, messages.SeverityError, `type "sse" needs a url`}}},
		{"command not a string", `{"command": ["npx"]}`, []diag{{1, 34, messages.SeverityError, "command must be a string, not an array"}}},
		{"command empty", `{"command": " "}`, []diag{{1, 34, messages.SeverityError, "command is empty"}}},
		{"command empty after expansion", `{"command": "${EMPTY}"}`, []diag{{1, 34, messages.SeverityError, "command is empty (after expansion)"}}},
		{"args not an array", `{"command": "x", "args": "-y"}`, []diag{{1, 47, messages.SeverityError, "args must be an array of strings"}}},
		{"args element not a string", `{"command": "x", "args": ["a", 2]}`, []diag{{1, 53, messages.SeverityError, "args[1] must be a string, not a number"}}},
		{"args with NUL", `{"command": "x", "args": ["a\u0000b"]}`, []diag{{1, 48, messages.SeverityError, "args[0] contains a NUL byte"}}},
		{"env not an object", `{"command": "x", "env": ["A=1"]}`, []diag{{1, 46, messages.SeverityError, "env must be an object of strings"}}},
		{"env number value", `{"command": "x", "env": {"PORT": 8080}}`, []diag{{1, 55, messages.SeverityError, "env.PORT must be a string: put the value in double quotes"}}},
		{"env bool value", `{"command": "x", "env": {"DEBUG": true}}`, []diag{{1, 56, messages.SeverityError, "env.DEBUG must be a string"}}},
		{"env object value", `{"command": "x", "env": {"A": {}}}`, []diag{{1, 52, messages.SeverityError, "env.A must be a string, not an object"}}},
		{"env empty name", `{"command": "x", "env": {"": "v"}}`, []diag{{1, 47, messages.SeverityError, "empty variable name"}}},
		{"env name with =", `{"command": "x", "env": {"A=B": "v"}}`, []diag{{1, 47, messages.SeverityError, `"A=B" contains '='`}}},
		{"env name twice", `{"command": "x", "env": {"A": "1", "A": "2"}}`, []diag{{1, 57, messages.SeverityError, "env.A is given more than once"}}},
		{"env name with a newline is quoted", `{"command": "x", "env": {"A\nB": "${NOPE}"}}`, []diag{{1, 56, messages.SeverityError, `env["A\nB"]: variable NOPE is not set`}}},
		{"cwd not a string", `{"command": "x", "cwd": 1}`, []diag{{1, 46, messages.SeverityError, "cwd must be a string"}}},
		{"url not a string", `{"url": 1}`, []diag{{1, 30, messages.SeverityError, "url must be a string"}}},
		{"url relative", `{"url": "/mcp"}`, []diag{{1, 30, messages.SeverityError, "url must start with http:// or https://"}}},
		{"url wrong scheme", `{"url": "ws://h/mcp"}`, []diag{{1, 30, messages.SeverityError, "url must start with http:// or https://"}}},
		{"url without host", `{"url": "https:///mcp"}`, []diag{{1, 30, messages.SeverityError, "url has no host"}}},
		{"url opaque", `{"url": "http:h"}`, []diag{{1, 30, messages.SeverityError, "url has no host"}}},
		{"url unparsable does not echo", `{"url": "https://h/%zz-secret"}`, []diag{{1, 30, messages.SeverityError, "url is not a valid URL"}}},
		{"headers not an object", `{"url": "https://h/", "headers": "Authorization: x"}`, []diag{{1, 55, messages.SeverityError, "headers must be an object of strings"}}},
		{"header bad name", `{"url": "https://h/", "headers": {"X Key": "v"}}`, []diag{{1, 56, messages.SeverityError, `header name "X Key"`}}},
		{"header value with newline", `{"url": "https://h/", "headers": {"X-Key": "a\nb"}}`, []diag{{1, 65, messages.SeverityError, "headers.X-Key header value contains a line break"}}},
		{"header twice ignoring case", `{"url": "https://h/", "headers": {"X-Key": "a", "x-key": "b"}}`, []diag{{1, 70, messages.SeverityError, "headers.x-key is given more than once"}}},
		{"header twice in a large object", `{"url": "https://h/", "headers": {"A": "1", "B": "1", "C": "1", "D": "1", "E": "1", "F": "1", "G": "1", "H": "1", "a": "2"}}`, []diag{{1, 136, messages.SeverityError, "headers.a is given more than once"}}},
		{"env name twice in a large object", `{"command": "x", "env": {"A": "1", "B": "1", "C": "1", "D": "1", "E": "1", "F": "1", "G": "1", "H": "1", "a": "2", "A": "3"}}`, []diag{{1, 137, messages.SeverityError, "env.A is given more than once"}}},
		{"disabled not a bool", `{"command": "x", "disabled": "yes"}`, []diag{{1, 51, messages.SeverityError, "disabled must be true or false, not a string"}}},
		{"connectTimeout a number", `{"command": "x", "connectTimeout": 30}`, []diag{{1, 57, messages.SeverityError, "connectTimeout must be a duration string"}}},
		{"callTimeout without unit", `{"command": "x", "callTimeout": "30"}`, []diag{{1, 54, messages.SeverityError, "callTimeout is not a duration"}}},
		{"callTimeout zero", `{"command": "x", "callTimeout": "0s"}`, []diag{{1, 54, messages.SeverityError, "callTimeout must be positive"}}},
		{"connectTimeout negative", `{"command": "x", "connectTimeout": "-1s"}`, []diag{{1, 57, messages.SeverityError, "connectTimeout must be positive"}}},
		{"restart unknown", `{"command": "x", "restart": "always"}`, []diag{{1, 50, messages.SeverityError, `restart must be "on-failure" or "never"`}}},
		{"restart not a string", `{"command": "x", "restart": false}`, []diag{{1, 50, messages.SeverityError, "restart must be a string"}}},
		{"autostart unknown", `{"command": "x", "autostart": "later"}`, []diag{{1, 52, messages.SeverityError, `autostart must be "eager" or "lazy"`}}},
		{"autostart not a string", `{"command": "x", "autostart": true}`, []diag{{1, 52, messages.SeverityError, "autostart must be a string"}}},
		{"idleTimeout without unit", `{"command": "x", "idleTimeout": "300"}`, []diag{{1, 54, messages.SeverityError, "idleTimeout is not a duration"}}},
		{"idleTimeout zero", `{"command": "x", "idleTimeout": "0s"}`, []diag{{1, 54, messages.SeverityError, "idleTimeout must be positive"}}},
		{"idleTimeout a number", `{"command": "x", "idleTimeout": 60}`, []diag{{1, 54, messages.SeverityError, "idleTimeout must be a duration string"}}},
		{"allowTools not an array", `{"command": "x", "allowTools": "read"}`, []diag{{1, 53, messages.SeverityError, "allowTools must be an array of strings"}}},
		{"denyTools empty name", `{"command": "x", "denyTools": ["a", ""]}`, []diag{{1, 58, messages.SeverityError, "denyTools[1] is empty"}}},
		{"denyTools element not a string", `{"command": "x", "denyTools": [null]}`, []diag{{1, 53, messages.SeverityError, "denyTools[0] must be a string, not null"}}},
		{"field given twice", `{"command": "x", "command": "y"}`, []diag{{1, 39, messages.SeverityError, `field "command" is given more than once`}}},
		{"field given twice, once null", `{"command": null, "command": "y"}`, []diag{{1, 40, messages.SeverityError, `field "command" is given more than once`}}},
		{
			name:  "every error of an entry is reported",
			entry: `{"command": 1, "args": 2, "env": 3}`,
			diags: []diag{
				{1, 34, messages.SeverityError, "command must be a string"},
				{1, 45, messages.SeverityError, "args must be an array"},
				{1, 55, messages.SeverityError, "env must be an object"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := `{"mcpServers": {"s": ` + tt.entry + `, "ok": {"command": "fine"}}}`
			got := config.ParseFile(testPath, []byte(src), testOpts())
			if !got.OK {
				t.Fatalf("file not OK:\n%s", formatDiags(got.Diagnostics))
			}
			checkDiags(t, testPath, got.Diagnostics, tt.diags)
			// The bad entry is invalid with every error in its reason, and
			// its sibling still runs.
			if diff := cmp.Diff([]string{"s"}, invalidNames(got.Invalid)); diff != "" {
				t.Fatalf("invalid (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"ok"}, names(got.Servers)); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			for _, d := range tt.diags {
				if !strings.Contains(got.Invalid[0].Reason, d.Has) {
					t.Errorf("reason %q does not contain %q", got.Invalid[0].Reason, d.Has)
				}
			}
			if !strings.HasPrefix(got.Invalid[0].Reason, testPath+":1:") {
				t.Errorf("reason %q does not start with the file and line", got.Invalid[0].Reason)
			}
			if diff := cmp.Diff(at(1, 17), got.Invalid[0].Source); diff != "" {
				t.Errorf("source (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseFile_Warnings covers problems that do not stop an entry.
func TestParseFile_Warnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		entry string
		diags []diag
		want  messages.ServerSpec
	}{
		{
			name:  "unknown field",
			entry: `{"command": "x", "autoApprov": ["t"]}`,
			diags: []diag{{1, 39, messages.SeverityWarning, `server "s": unknown field "autoApprov" is ignored`}},
			want:  messages.ServerSpec{Name: "s", Transport: messages.TransportStdio, Command: "x", Source: at(1, 17)},
		},
		{
			name:  "unknown field with the wrong case",
			entry: `{"command": "x", "Args": ["t"]}`,
			diags: []diag{{1, 39, messages.SeverityWarning, `did you mean "args"?`}},
			want:  messages.ServerSpec{Name: "s", Transport: messages.TransportStdio, Command: "x", Source: at(1, 17)},
		},
		{
			name:  "env on an http server is ignored",
			entry: `{"url": "https://h/", "env": {"A": "${NOPE}"}, "args": [], "cwd": "x"}`,
			diags: []diag{
				{1, 51, messages.SeverityWarning, "env is not used by http servers and is ignored"},
				{1, 77, messages.SeverityWarning, "args is not used by http servers"},
				{1, 88, messages.SeverityWarning, "cwd is not used by http servers"},
			},
			want: messages.ServerSpec{Name: "s", Transport: messages.TransportHTTP, URL: "https://h/", Source: at(1, 17)},
		},
		{
			name:  "headers on a stdio server are ignored",
			entry: `{"command": "x", "headers": {"A": "${NOPE}"}}`,
			diags: []diag{{1, 50, messages.SeverityWarning, "headers is not used by stdio servers"}},
			want:  messages.ServerSpec{Name: "s", Transport: messages.TransportStdio, Command: "x", Source: at(1, 17)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := `{"mcpServers": {"s": ` + tt.entry + `}}`
			got := config.ParseFile(testPath, []byte(src), testOpts())
			checkDiags(t, testPath, got.Diagnostics, tt.diags)
			if len(got.Servers) != 1 {
				t.Fatalf("want the server valid, got invalid %v", got.Invalid)
			}
			if diff := cmp.Diff(tt.want, got.Servers[0], ignoreFingerprint); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseFile_DuplicateNameInOneFile: JSON parsers disagree on which
// duplicate key wins, so neither runs and both places are reported.
func TestParseFile_DuplicateNameInOneFile(t *testing.T) {
	t.Parallel()
	src := `{
  "mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}},
  "servers": {"a": {"command": "z"}}
}`
	got := config.ParseFile(testPath, []byte(src), testOpts())
	checkDiags(t, testPath, got.Diagnostics, []diag{
		{3, 15, messages.SeverityError, `server "a" is declared more than once in this file (first at line 2)`},
	})
	want := []messages.InvalidServer{{
		Name:   "a",
		Source: at(2, 18),
		Reason: testPath + ":2:18: declared more than once in this file: remove or rename one",
	}}
	if diff := cmp.Diff(want, got.Invalid); diff != "" {
		t.Errorf("invalid (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b"}, names(got.Servers)); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

// TestParseFile_SortedOutput: servers and invalid entries come sorted by
// name and diagnostics by position, whatever the order in the file.
func TestParseFile_SortedOutput(t *testing.T) {
	t.Parallel()
	src := `{"servers": {
  "zeta": {"command": "x", "q": 1},
  "bad": {"command": 1},
  "alpha": {"command": "x", "p": 1},
  "": {"command": "x"}
}}`
	got := config.ParseFile(testPath, []byte(src), testOpts())
	if diff := cmp.Diff([]string{"alpha", "zeta"}, names(got.Servers)); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "bad"}, invalidNames(got.Invalid)); diff != "" {
		t.Errorf("invalid (-want +got):\n%s", diff)
	}
	checkDiags(t, testPath, got.Diagnostics, []diag{
		{2, 28, messages.SeverityWarning, `unknown field "q"`},
		{3, 22, messages.SeverityError, `command must be a string`},
		{4, 29, messages.SeverityWarning, `unknown field "p"`},
		{5, 3, messages.SeverityError, `server name is empty`},
	})
}

// TestParseFile_DiagnosticsFitOneLine: the check CLI prints
// "file:line:col: severity: message", so no message may span lines, even
// one built from a multi-line error.
func TestParseFile_DiagnosticsFitOneLine(t *testing.T) {
	t.Parallel()
	cfg, _ := config.Load([]config.FileContent{
		{Path: "/a.json", ReadErr: errorString("open /a.json:\npermission denied")},
		{Path: "/b.json", Data: []byte("{\n\"servers\": {\"x\": {\"command\": \"${A\n}\"}}}")},
		{Path: "/c.json", Data: []byte(`{"servers": {"__": {"url": "ftp://x", "zz": 1}}}`)},
	}, testOpts(), nil)
	if len(cfg.Diagnostics) < 4 {
		t.Fatalf("want at least 4 diagnostics, got:\n%s", formatDiags(cfg.Diagnostics))
	}
	for _, d := range cfg.Diagnostics {
		if strings.ContainsAny(d.Message, "\r\n") || d.Line < 1 || d.Column < 1 || d.Path == "" || d.Severity == "" {
			t.Errorf("diagnostic does not fit file:line:col: severity: message: %#v", d)
		}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }
