package cli_test

import (
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// The incident (T2): an approved entry's envFile changed by a git pull to
// NODE_OPTIONS=--require ./evil.js, and `trust --list` still said
// "unchanged". Now --list and check name the changed envFile, trust shows
// the entry untrusted for it, and approving again records the new
// content.
func TestTrust_ChangedEnvFileNeedsApprovalAgain(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	p := newTrustProject(t)
	writeFile(t, p.dir, ".mcp.json", `{"mcpServers": {"node": {"command": "/bin/true", "envFile": ".env"}}}`)
	env := writeFile(t, p.dir, ".env", "PORT=8080\n")
	mcpvisor(ctx, p.env, "", "trust", "--yes", p.file).want(t, cli.ExitOK, "approved "+p.file, "")
	mcpvisor(ctx, p.env, "", "trust", "--list").want(t, cli.ExitOK, "unchanged", "")
	recorded := func() string {
		a, err := ondisk.ReadApprovals(p.store)
		if err != nil {
			t.Fatal(err)
		}
		return a.Files[p.file].EnvFiles["node"][env]
	}
	if got := recorded(); got != config.ContentHash([]byte("PORT=8080\n")) {
		t.Fatalf("recorded envFile hash %q", got)
	}

	evil := "NODE_OPTIONS=--require ./evil.js\n"
	writeFile(t, p.dir, ".env", evil)
	res := mcpvisor(ctx, p.env, "", "trust", "--list")
	res.want(t, cli.ExitOK, "changed since approval: envFile .env (server node): waits for mcpvisor trust "+p.file, "")
	if strings.Contains(res.stdout, "unchanged") {
		t.Fatalf("list:\n%s", res.stdout)
	}
	mcpvisor(ctx, p.env, "", "check", "--workdir", p.dir, ".mcp.json").
		want(t, cli.ExitOK, `warning: server "node" is untrusted: changed since approval: envFile .env`, "")

	res = mcpvisor(ctx, p.env, "", "trust", "--yes", p.file)
	res.want(t, cli.ExitOK, "(untrusted: changed since approval: envFile .env)", "")
	if strings.Contains(res.stdout, "already approved") || !strings.Contains(res.stdout, "approved "+p.file) {
		t.Fatalf("trust:\n%s", res.stdout)
	}
	if got := recorded(); got != config.ContentHash([]byte(evil)) {
		t.Fatalf("re-approval recorded %q", got)
	}
	mcpvisor(ctx, p.env, "", "trust", "--list").want(t, cli.ExitOK, "unchanged", "")
}
