package config_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// TestDerivePrefix: the exposed prefix is the name made of the characters
// MCP tool names allow, shortened with a stable hash when long; a name
// that was valid before names were free-form is its own prefix.
func TestDerivePrefix(t *testing.T) {
	t.Parallel()
	long := "github.com/modelcontextprotocol/servers/tree/main/src/brave-search-and-more-words"
	tests := []struct{ name, want string }{
		{"github", "github"},
		{"my-server.v2", "my-server.v2"},
		{"my_server", "my_server"},
		{strings.Repeat("x", 64), strings.Repeat("x", 64)},
		{"_private", "private"},
		{"a__b", "a_b"},
		{"my server", "my_server"},
		{"a_", "a"},
		{"github.com/modelcontextprotocol/servers/tree/main/src/brave-search",
			"brave-search-" + shortHash("github.com/modelcontextprotocol/servers/tree/main/src/brave-search")},
		{long, "brave-search-and-more-words-" + shortHash(long)},
		{strings.Repeat("y", 70), strings.Repeat("y", 57) + "-" + shortHash(strings.Repeat("y", 70))},
		{"日本語", "server-" + shortHash("日本語")},
		{"__", "server-" + shortHash("__")},
	}
	for _, tt := range tests {
		got := config.DerivePrefix(tt.name)
		if got != tt.want {
			t.Errorf("DerivePrefix(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if len(got) > config.MaxPrefixBytes || strings.Contains(got, "__") || strings.HasPrefix(got, "_") || strings.HasSuffix(got, "_") {
			t.Errorf("DerivePrefix(%q) = %q breaks the prefix rules", tt.name, got)
		}
	}
}

// shortHash is the stable hash a shortened or disambiguated prefix ends
// with: the first 6 hex digits of the name's SHA-256. It is part of the
// contract (exposed names must not change between releases).
func shortHash(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])[:6]
}

// TestLoad_PrefixesUniqueAcrossFiles: prefixes are unique across the
// config; the name that is its own prefix keeps it, the one that needed
// sanitising gets the hash; an entry's prefix field wins; "" is shared.
func TestLoad_PrefixesUniqueAcrossFiles(t *testing.T) {
	t.Parallel()
	user := `{"mcpServers": {"private": {"command": "a"}, "gh": {"command": "b", "prefix": "github"},
		"bare1": {"command": "c", "prefix": ""}, "bare2": {"command": "d", "prefix": ""}}}`
	project := `{"mcpServers": {"_private": {"command": "e"}, "github": {"command": "f"}, "zdup": {"command": "g", "prefix": "github"},
		"github.com/x/brave-search": {"command": "h"}}}`
	cfg, _ := config.Load([]config.FileContent{
		{Path: "/proj/.mcp.json", Data: []byte(project)},
		{Path: "/home/u/.claude.json", Data: []byte(user)},
	}, testOpts(), nil)
	got := map[string]string{}
	for _, s := range cfg.Servers {
		got[s.Name] = s.Prefix
	}
	want := map[string]string{
		"private": "private", "_private": "private-" + shortHash("_private"),
		"gh": "github", "github": "github-" + shortHash("github"),
		"bare1": "", "bare2": "",
		"github.com/x/brave-search": "github.com_x_brave-search",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prefixes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"zdup"}, invalidNames(cfg.Invalid)); diff != "" {
		t.Fatalf("invalid (-want +got):\n%s", diff)
	}
	if r := cfg.Invalid[0].Reason; !strings.Contains(r, `prefix "github" is already the prefix of server "gh"`) {
		t.Errorf("reason %q does not name the other server", r)
	}
}

// TestParseFile_PrefixField: the prefix field must be a valid prefix or "".
func TestParseFile_PrefixField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prefix  any
		wantErr string
	}{
		{"gh", ""},
		{"", ""},
		{"a.b-c_d", ""},
		{"a__b", `contains "__"`},
		{"_a", `starts or ends with "_"`},
		{"a b", `contains " "`},
		{strings.Repeat("p", 65), "65 bytes long"},
		{7, "prefix must be a string"},
	}
	for _, tt := range tests {
		v, _ := json.Marshal(tt.prefix)
		src := `{"servers": {"s": {"command": "x", "prefix": ` + string(v) + `}}}`
		got := config.ParseFile(testPath, []byte(src), testOpts())
		switch {
		case tt.wantErr == "" && len(got.Servers) != 1:
			t.Errorf("prefix %s: %s", v, formatDiags(got.Diagnostics))
		case tt.wantErr != "" && (len(got.Invalid) != 1 || !strings.Contains(got.Invalid[0].Reason, tt.wantErr)):
			t.Errorf("prefix %s: want an invalid entry with %q, got %s", v, tt.wantErr, formatDiags(got.Diagnostics))
		}
	}
}
