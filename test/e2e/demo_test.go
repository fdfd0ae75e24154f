package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// demoCopy lays out what the README's demo needs, as a clone has it after
// `go build -o bin/mcpvisor ./cmd/mcpvisor`: the repository's
// docs/examples/demo.mcp.json and bin/mcpvisor, under a temporary root.
// It returns the demo file's path.
func demoCopy(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	demo, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", "demo.mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "docs", "examples", "demo.mcp.json")
	for _, dir := range []string{filepath.Dir(path), filepath.Join(root, "bin")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, demo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(root, "bin", "mcpvisor")); err != nil {
		t.Fatal(err)
	}
	return path
}

// The demo ran bin/mcpvisor relative to the working directory, so
// `mcpvisor run --config …/demo.mcp.json` failed from anywhere but the
// repository root. Its entries now run in the repository root (cwd,
// relative to the file): supervised from this test's directory, both
// servers are ready.
func TestDemo_RunsFromAnyDirectory(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{demoCopy(t)}, DisableWatch: true, Backoff: slowBackoff})
	rec := actorstest.Record(t, sup)
	for _, s := range []string{"alpha", "beta"} {
		rec.WaitState(ctx, 0, s, messages.StateReady)
	}
}

// `mcpvisor check` of the demo, as the README runs it, finds nothing to
// say from another directory either: no error, and no warning that a
// command resolves from one directory only.
func TestDemo_CheckIsCleanFromAnyDirectory(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(actorstest.Context(t), bin, "check", demoCopy(t))
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "2 servers, no errors\n") || strings.Contains(string(out), "warning") {
		t.Fatalf("check: %v\n%s", err, out)
	}
}
