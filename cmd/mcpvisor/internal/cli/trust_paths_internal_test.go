package cli

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Only a project file that mcpvisor picked by itself needs approval: a
// file the user named (--config, MCPVISOR_CONFIG) is trusted by that act,
// and so is ~/.mcp.json even when mcpvisor runs in the home directory.
func TestConfigFlags_WhichFilesNeedApproval(t *testing.T) {
	t.Parallel()
	home, proj, xdg := t.TempDir(), t.TempDir(), t.TempDir()
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	plain := env(map[string]string{"HOME": home})
	tests := []struct {
		name      string
		args      []string
		lookup    func(string) (string, bool)
		wantProj  []string
		wantStore string
	}{
		{name: "defaults in a project", args: []string{"--workdir", proj}, lookup: plain,
			wantProj: []string{filepath.Join(proj, ".mcp.json")}, wantStore: filepath.Join(home, ".config", "mcpvisor", "trust.json")},
		{name: "XDG_CONFIG_HOME", args: []string{"--workdir", proj}, lookup: env(map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg}),
			wantProj: []string{filepath.Join(proj, ".mcp.json")}, wantStore: filepath.Join(xdg, "mcpvisor", "trust.json")},
		{name: "relative XDG_CONFIG_HOME ignored", args: []string{"--workdir", proj}, lookup: env(map[string]string{"HOME": home, "XDG_CONFIG_HOME": "rel"}),
			wantProj: []string{filepath.Join(proj, ".mcp.json")}, wantStore: filepath.Join(home, ".config", "mcpvisor", "trust.json")},
		{name: "in the home directory", args: []string{"--workdir", home}, lookup: plain, wantStore: filepath.Join(home, ".config", "mcpvisor", "trust.json")},
		{name: "--config names the files", args: []string{"--workdir", proj, "--config", ".mcp.json"}, lookup: plain},
		{name: "MCPVISOR_CONFIG names the files", args: []string{"--workdir", proj}, lookup: env(map[string]string{"HOME": home, "MCPVISOR_CONFIG": ".mcp.json"}),
			wantStore: filepath.Join(home, ".config", "mcpvisor", "trust.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := parseRunFlags(tt.args, IO{Stderr: io.Discard, LookupEnv: tt.lookup})
			if err != nil {
				t.Fatal(err)
			}
			opts := f.options(nil, tt.lookup)
			if diff := cmp.Diff(tt.wantProj, opts.ApprovalRequired); diff != "" {
				t.Errorf("approval required (-want +got):\n%s", diff)
			}
			if tt.wantStore != "" && opts.TrustFile != tt.wantStore {
				t.Errorf("trust file %q, want %q", opts.TrustFile, tt.wantStore)
			}
			if opts.Home != home {
				t.Errorf("home %q, want %q", opts.Home, home)
			}
		})
	}
}
