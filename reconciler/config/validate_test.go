package config_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// TestParseFile_ServerNames: names are kept as people write them (Cline
// names servers after repository URLs; "_private", "a__b" and non-ASCII
// names are accepted); only an empty name, or one too long to show, makes
// its own entry invalid.
func TestParseFile_ServerNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		wantErr string // fragment; "" means valid
	}{
		{"github", ""},
		{"a", ""},
		{"my_server", ""},
		{"my-server.v2", ""},
		{"日本語", ""},
		{"github.com/modelcontextprotocol/servers/tree/main/src/brave-search", ""},
		{"_private", ""},
		{"a__b", ""},
		{"__", ""},
		{"a_", ""},
		{"with space", ""},
		{strings.Repeat("x", config.MaxNameBytes), ""},
		{strings.Repeat("x", config.MaxNameBytes+1), "1025 bytes long: shorten it to at most 1024"},
		{"", "server name is empty"},
		{"  ", "server name is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key, _ := json.Marshal(tt.name)
			src := `{"servers": {` + string(key) + `: {"command": "x"}, "sibling": {"command": "y"}}}`
			got := config.ParseFile(testPath, []byte(src), testOpts())
			if tt.wantErr == "" {
				if diff := cmp.Diff(sortedStrings("sibling", tt.name), names(got.Servers)); diff != "" {
					t.Errorf("servers (-want +got):\n%s\n%s", diff, formatDiags(got.Diagnostics))
				}
				return
			}
			checkDiags(t, testPath, got.Diagnostics, []diag{{1, 14, messages.SeverityError, tt.wantErr}})
			if diff := cmp.Diff([]string{tt.name}, invalidNames(got.Invalid)); diff != "" {
				t.Errorf("invalid (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"sibling"}, names(got.Servers)); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
		})
	}
}

func sortedStrings(ss ...string) []string {
	slices.Sort(ss)
	return ss
}

// TestParseFile_URLs: a remote server needs an absolute http or https URL
// with a host; the error never quotes the URL, which may hold credentials.
func TestParseFile_URLs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url     string
		wantErr string
	}{
		{"https://mcp.example.com/mcp", ""},
		{"http://127.0.0.1:3000/mcp", ""},
		{"http://[::1]:3000/sse", ""},
		{"HTTPS://MCP.EXAMPLE.COM/", ""},
		{"https://user:pw@h.example/mcp?key=v#frag", ""},
		{"https://h.example", ""},
		{"", "url must start with http:// or https://"},
		{"mcp.example.com/mcp", "url must start with http:// or https://"},
		{"//mcp.example.com/mcp", "url must start with http:// or https://"},
		{"file:///tmp/sock", "url must start with http:// or https://"},
		{"mailto:pw@h", "url must start with http:// or https://"},
		{"https://", "url has no host"},
		{"https:pw@h", "url has no host"},
		{"http://[::1", "url is not a valid URL"},
		{"https://h/\x7f", "url is not a valid URL"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			raw, _ := json.Marshal(tt.url)
			src := `{"servers": {"r": {"type": "sse", "url": ` + string(raw) + `}}}`
			got := config.ParseFile(testPath, []byte(src), testOpts())
			if tt.wantErr == "" {
				if len(got.Servers) != 1 || got.Servers[0].URL != tt.url {
					t.Errorf("want the server valid with url %q; got %+v\n%s", tt.url, got.Servers, formatDiags(got.Diagnostics))
				}
				return
			}
			checkDiags(t, testPath, got.Diagnostics, []diag{{1, 42, messages.SeverityError, tt.wantErr}})
			if len(tt.url) > len("https://") && strings.Contains(got.Diagnostics[0].Message, tt.url) {
				t.Errorf("message quotes the url: %q", got.Diagnostics[0].Message)
			}
		})
	}
}

// TestParseFile_HeaderNames: header names must be HTTP tokens.
func TestParseFile_HeaderNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		valid bool
	}{
		{"Authorization", true},
		{"X-API-Key", true},
		{"x_custom.v1~!#$%&'*+^`|", true},
		{"", false},
		{"X Key", false},
		{"X-Key:", false},
		{"Ключ", false},
		{"X\tKey", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key, _ := json.Marshal(tt.name)
			src := `{"servers": {"r": {"url": "https://h/", "headers": {` + string(key) + `: "v"}}}}`
			got := config.ParseFile(testPath, []byte(src), testOpts())
			if valid := len(got.Servers) == 1; valid != tt.valid {
				t.Errorf("valid = %v, want %v\n%s", valid, tt.valid, formatDiags(got.Diagnostics))
			}
		})
	}
}

// An Authorization header over plain http:// to a host that is not
// loopback travels in the clear: a warning, and the entry still runs.
func TestParseFile_CleartextAuthorizationWarns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url, header string
		warn        bool
	}{
		{"http://mcp.example.com/mcp", "Authorization", true},
		{"http://10.0.0.5:8080/mcp", "authorization", true},
		{"http://[2001:db8::1]/mcp", "Authorization", true},
		{"https://mcp.example.com/mcp", "Authorization", false},
		{"http://127.0.0.1:8080/mcp", "Authorization", false},
		{"http://127.1.2.3/mcp", "Authorization", false},
		{"http://localhost:3000/mcp", "Authorization", false},
		{"http://[::1]:3000/mcp", "Authorization", false},
		{"http://mcp.example.com/mcp", "X-Trace", false},
	}
	for _, tt := range tests {
		src := `{"mcpServers": {"s": {"url": "` + tt.url + `", "headers": {"` + tt.header + `": "Bearer tok-1234"}}}}`
		p := config.ParseFile(testPath, []byte(src), testOpts())
		if len(p.Servers) != 1 {
			t.Errorf("%s: entry not valid: %+v", tt.url, p.Invalid)
			continue
		}
		warned := slices.ContainsFunc(p.Diagnostics, func(d messages.Diagnostic) bool {
			return d.Severity == messages.SeverityWarning && strings.Contains(d.Message, "sent in the clear over http://")
		})
		if warned != tt.warn {
			t.Errorf("%s with %s: warned = %v, want %v (diagnostics %+v)", tt.url, tt.header, warned, tt.warn, p.Diagnostics)
		}
		for _, d := range p.Diagnostics {
			if strings.Contains(d.Message, "tok-1234") {
				t.Errorf("diagnostic %q shows the credential", d.Message)
			}
		}
	}
}
