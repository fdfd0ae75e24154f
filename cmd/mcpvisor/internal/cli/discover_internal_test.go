package cli

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// run --discover reads the config files of the tools installed for this
// user that exist, project files first, and the project files need
// approval; the user's own do not.
func TestConfigFlags_DiscoverFindsToolsFilesInPrecedence(t *testing.T) {
	t.Parallel()
	home, proj, xdg := t.TempDir(), t.TempDir(), t.TempDir()
	files := []string{
		filepath.Join(proj, ".vscode", "mcp.json"),
		filepath.Join(proj, ".mcp.json"),
		filepath.Join(home, ".claude.json"),
		filepath.Join(home, ".cursor", "mcp.json"),
		filepath.Join(xdg, "Code", "User", "mcp.json"),
		filepath.Join(home, ".gemini", "settings.json"),
	}
	for _, p := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(proj, ".cursor", "mcp.json"), 0o755); err != nil { // a directory: not a config file
		t.Fatal(err)
	}
	lookup := func(k string) (string, bool) {
		v, ok := map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg}[k]
		return v, ok
	}
	f, err := parseRunFlags([]string{"--discover", "--workdir", proj}, IO{Stderr: io.Discard, LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
	opts := f.options(nil, lookup)
	want := []string{files[1], files[0], files[2], files[3], files[4], files[5]}
	if diff := cmp.Diff(want, opts.ConfigPaths); diff != "" {
		t.Errorf("config paths (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{files[1], files[0]}, opts.ApprovalRequired); diff != "" {
		t.Errorf("approval required (-want +got):\n%s", diff)
	}
	if opts.TrustFile != filepath.Join(xdg, "mcpvisor", "trust.json") || opts.InputsFile != filepath.Join(xdg, "mcpvisor", "inputs.json") {
		t.Errorf("stores %q %q", opts.TrustFile, opts.InputsFile)
	}
}
