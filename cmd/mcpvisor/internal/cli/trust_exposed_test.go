package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
)

// exposingFile expands GITHUB_TOKEN into args and AWS_SECRET_ACCESS_KEY
// into headersHelper: text every local user reads through ps.
const exposingFile = `{"mcpServers": {
  "gh": {"command": "/bin/true", "args": ["--token", "${GITHUB_TOKEN}"]},
  "helper": {"url": "https://127.0.0.1:9/mcp", "headersHelper": "printf '{}' ${AWS_SECRET_ACCESS_KEY}"}
}}`

// E1: `mcpvisor trust` warns, before asking, that approving would put
// these secrets on a command line, and says to pass them in env or
// headers; it shows no value.
func TestTrust_WarnsAboutSecretsOnTheCommandLine(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	p := newTrustProject(t)
	writeFile(t, p.dir, ".mcp.json", exposingFile)
	p.env["GITHUB_TOKEN"] = "ghp-value-never-shown"
	res := mcpvisor(ctx, p.env, "", "trust", "--yes", p.file)
	res.want(t, cli.ExitOK, "warning: "+p.file+":2:54: server gh: ${GITHUB_TOKEN} is expanded into args[1], a command line every local user can read (ps, /proc/PID/cmdline): pass it in env instead", "")
	if !strings.Contains(res.stdout, "server helper: ${AWS_SECRET_ACCESS_KEY} is expanded into headersHelper") ||
		!strings.Contains(res.stdout, `send it with headers instead`) || strings.Contains(res.stdout, "ghp-value-never-shown") {
		t.Fatalf("trust:\n%s", res.stdout)
	}
}

// E1: `mcpvisor check` warns the same way about the entries it parses.
func TestCheck_WarnsAboutSecretsOnTheCommandLine(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	file := writeFile(t, dir, "mcp.json", exposingFile)
	env := map[string]string{"HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir(), "GITHUB_TOKEN": "ghp-value-never-shown", "AWS_SECRET_ACCESS_KEY": "aws-value-never-shown"}
	res := mcpvisor(ctx, env, "", "check", "--workdir", dir, filepath.Base(file))
	res.want(t, cli.ExitOK, file+`:2:54: warning: server "gh": ${GITHUB_TOKEN} is expanded into args[1], a command line every local user can read (ps, /proc/PID/cmdline): pass it in env instead ("env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"})`, "")
	if !strings.Contains(res.stdout, `server "helper": ${AWS_SECRET_ACCESS_KEY} is expanded into headersHelper`) ||
		strings.Contains(res.stdout, "never-shown") {
		t.Fatalf("check:\n%s", res.stdout)
	}
}
