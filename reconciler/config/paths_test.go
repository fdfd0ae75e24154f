package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

func TestResolvePaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		paths []string
		home  string
		want  []string
	}{
		{
			name:  "absolute paths are cleaned",
			paths: []string{"/etc/mcp/../mcp/./servers.json"},
			home:  "/home/ada",
			want:  []string{"/etc/mcp/servers.json"},
		},
		{
			name:  "relative paths resolve against the working directory",
			paths: []string{".mcp.json", "../shared/mcp.json"},
			home:  "/home/ada",
			want:  []string{"/work/proj/.mcp.json", "/work/shared/mcp.json"},
		},
		{
			name:  "tilde is home",
			paths: []string{"~/.claude.json", "~", "~/a/../b.json"},
			home:  "/home/ada",
			want:  []string{"/home/ada/.claude.json", "/home/ada", "/home/ada/b.json"},
		},
		{
			name:  "tilde user and inner tildes are ordinary names",
			paths: []string{"~bob/mcp.json", "a/~/b.json"},
			home:  "/home/ada",
			want:  []string{"/work/proj/~bob/mcp.json", "/work/proj/a/~/b.json"},
		},
		{
			name:  "tilde without a home stays relative",
			paths: []string{"~/.claude.json"},
			want:  []string{"/work/proj/~/.claude.json"},
		},
		{
			name:  "duplicates after resolution keep the first place",
			paths: []string{"b.json", ".mcp.json", "/work/proj/b.json", "./.mcp.json", "~/x.json", "/home/ada/x.json"},
			home:  "/home/ada",
			want:  []string{"/work/proj/b.json", "/work/proj/.mcp.json", "/home/ada/x.json"},
		},
		{
			name:  "empty entries are dropped",
			paths: []string{"", "a.json", ""},
			home:  "/home/ada",
			want:  []string{"/work/proj/a.json"},
		},
		{
			name: "nothing in, nothing out",
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := config.ResolvePaths(tt.paths, "/work/proj", tt.home)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ResolvePaths (-want +got):\n%s", diff)
			}
		})
	}
}
