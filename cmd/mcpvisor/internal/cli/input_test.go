package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
)

// input set reads the value from stdin and stores it 0600 in the user's
// config directory; list shows ids only; check then judges the entry with
// the value. The value shows in no output of any of them.
func TestInput_SetListUnsetAndTheValueNeverShows(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	const secret = "pplx-secret-value-7a1c"
	xdg := t.TempDir()
	env := map[string]string{"HOME": t.TempDir(), "XDG_CONFIG_HOME": xdg}
	dir := t.TempDir()
	cfg := writeFile(t, dir, "mcp.json", `{"inputs": [{"type": "promptString", "id": "key", "password": true}],
	  "servers": {"s": {"command": "srv", "args": ["--key", "${input:key}"], "env": {"K": "${input:key}"}}}}`)
	var outputs []string
	keep := func(r result) result { outputs = append(outputs, r.stdout, r.stderr); return r }

	keep(mcpvisor(ctx, env, "", "check", "--json", cfg)).want(t, cli.ExitOK, `"state": "needs-input"`, "")
	keep(mcpvisor(ctx, env, secret+"\n", "input", "set", "key")).want(t, cli.ExitOK, `input "key" stored`, "value of input")
	store := filepath.Join(xdg, "mcpvisor", "inputs.json")
	if info, err := os.Stat(store); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("store %s: %v %v, want mode 0600", store, info, err)
	}
	keep(mcpvisor(ctx, env, "", "input", "list")).want(t, cli.ExitOK, "key\n", "")
	keep(mcpvisor(ctx, env, "", "check", "--json", "--verbose", cfg)).want(t, cli.ExitOK, `"state": "starting"`, "")
	keep(mcpvisor(ctx, env, "", "check", cfg)).want(t, cli.ExitOK, "1 servers, no errors", "")
	keep(mcpvisor(ctx, env, "", "input", "unset", "key")).want(t, cli.ExitOK, `input "key" removed`, "")
	keep(mcpvisor(ctx, env, "", "input", "list")).want(t, cli.ExitOK, "no input values stored", "")
	keep(mcpvisor(ctx, env, "", "input", "set", "key")).want(t, cli.ExitUsage, "", "no value on stdin")
	for _, out := range outputs {
		if strings.Contains(out, secret) {
			t.Errorf("the stored value shows in output:\n%s", out)
		}
	}
}

// check --discover lists the files it found, with their tool and scope,
// and judges a discovered project file as untrusted until `mcpvisor
// trust` (with no arguments, which reviews the discovered project files).
func TestCheck_DiscoverJudgesProjectFilesUntrusted(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	home, proj, xdg := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg}
	if err := os.MkdirAll(filepath.Join(proj, ".vscode"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(proj, ".vscode"), "mcp.json", `{"servers": {"proj": {"command": "srv"}}}`)
	if err := os.MkdirAll(filepath.Join(home, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".cursor"), "mcp.json", `{"mcpServers": {"mine": {"command": "srv"}}}`)

	res := mcpvisor(ctx, env, "", "check", "--discover", "--workdir", proj)
	res.want(t, cli.ExitOK, "found "+filepath.Join(proj, ".vscode", "mcp.json")+" (VS Code, project)\nfound "+filepath.Join(home, ".cursor", "mcp.json")+" (Cursor, user)\n", "")
	if !strings.Contains(res.stdout, `server "proj" is untrusted`) || !strings.Contains(res.stdout, "1 servers, no errors") {
		t.Fatalf("check --discover:\n%s", res.stdout)
	}
	mcpvisor(ctx, env, "", "trust", "--yes", "--workdir", proj).want(t, cli.ExitOK, "approved", "")
	mcpvisor(ctx, env, "", "check", "--discover", "--workdir", proj).want(t, cli.ExitOK, "2 servers, no errors", "")
}

// T1: a header `Bearer ${input:github-pat}` in project B's approved file
// sent the value stored for project A (the store was keyed by id). A
// project file reads only the values stored for its project (input set
// --project DIR) or for every file (--all-projects): not project A's, not
// the user's own.
func TestInput_ProjectFileReadsOnlyItsProjectsValues(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env := map[string]string{"HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir()}
	const file = `{"inputs": [{"type": "promptString", "id": "github-pat", "password": true}],
	  "servers": {"gh": {"url": "https://h.example/mcp", "headers": {"Authorization": "Bearer ${input:github-pat}"}}}}`
	projA, projB := t.TempDir(), t.TempDir()
	for _, dir := range []string{projA, projB} {
		if err := os.MkdirAll(filepath.Join(dir, ".vscode"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, ".vscode"), "mcp.json", file)
		mcpvisor(ctx, env, "", "trust", "--yes", "--workdir", dir).want(t, cli.ExitOK, "approved", "")
	}
	checkB := func() result { return mcpvisor(ctx, env, "", "check", "--json", "--discover", "--workdir", projB) }

	mcpvisor(ctx, env, "pat-for-a-1\n", "input", "set", "--project", projA, "github-pat").want(t, cli.ExitOK, "for project "+projA, "")
	mcpvisor(ctx, env, "pat-for-me-2\n", "input", "set", "github-pat").want(t, cli.ExitOK, "for your own config files", "")
	mcpvisor(ctx, env, "", "check", "--json", "--discover", "--workdir", projA).want(t, cli.ExitOK, `"state": "starting"`, "")
	checkB().want(t, cli.ExitOK, `"state": "needs-input"`, "")
	checkB().want(t, cli.ExitOK, "mcpvisor input set --project "+projB+" github-pat", "")

	mcpvisor(ctx, env, "pat-for-b-3\n", "input", "--project", projB, "set", "github-pat").want(t, cli.ExitOK, "for project "+projB, "")
	checkB().want(t, cli.ExitOK, `"state": "starting"`, "")
	mcpvisor(ctx, env, "", "input", "unset", "--project", projB, "github-pat").want(t, cli.ExitOK, "removed", "")
	checkB().want(t, cli.ExitOK, `"state": "needs-input"`, "")
	mcpvisor(ctx, env, "pat-for-all-4\n", "input", "set", "--all-projects", "github-pat").want(t, cli.ExitOK, "for every config file", "")
	checkB().want(t, cli.ExitOK, `"state": "starting"`, "")

	res := mcpvisor(ctx, env, "", "input", "list")
	res.want(t, cli.ExitOK, "github-pat\ngithub-pat --all-projects\ngithub-pat --project "+projA+"\n", "")
	mcpvisor(ctx, env, "", "input", "set", "--project", projA, "--all-projects", "x").want(t, cli.ExitUsage, "", "give one")
}
