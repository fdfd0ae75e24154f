package clients_test

import (
	"regexp"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// claudeEnv is Claude Code's environment: a HOME of its own (its config,
// ~/.claude.json, is written there by `claude mcp add`), no API key, and
// its auto-updater and non-essential traffic off. `claude mcp list` needs
// neither a login nor the network (checked by hand with `unshare -n`; see
// docs/clients.md).
func claudeEnv(t *testing.T) []string {
	t.Helper()
	return clientEnv(
		"HOME="+t.TempDir(),
		"ANTHROPIC_API_KEY=",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	)
}

// connected matches `claude mcp list`'s line for a healthy entry named
// mcpvisor: "mcpvisor: COMMAND or URL - ✔ Connected".
var connected = regexp.MustCompile(`(?m)^mcpvisor: .* - ✔ Connected\s*$`)

// Claude Code's connect check, `claude mcp list`, reports the mcpvisor
// entry as connected: on stdio (`claude mcp add mcpvisor -- mcpvisor serve
// ...`, which Claude Code launches) and on HTTP (`claude mcp add
// --transport http` with the gateway's bearer token in --header).
func TestClaudeCode_MCPListConnected(t *testing.T) {
	t.Parallel()
	// The arguments of `claude mcp add --scope user` for each transport.
	transports := map[string]func(t *testing.T) []string{
		"stdio": func(t *testing.T) []string {
			return []string{"mcpvisor", "--", bin, "serve", "--names", "bare", "--cache-dir", cacheDir(t), "--config", writeServers(t)}
		},
		"http": func(t *testing.T) []string {
			tokenFile, token := writeToken(t)
			endpoint := startServeHTTP(t, testctx.WithTimeout(t, matrixTimeout),
				"--names", "bare", "--token-file", tokenFile, "--cache-dir", cacheDir(t), "--config", writeServers(t))
			return []string{"--transport", "http", "mcpvisor", endpoint, "--header", "Authorization: Bearer " + token}
		},
	}
	for _, name := range []string{"stdio", "http"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := testctx.WithTimeout(t, matrixTimeout)
			env, project := claudeEnv(t), t.TempDir()
			add := append([]string{"mcp", "add", "--scope", "user"}, transports[name](t)...)
			if out := runClient(ctx, project, env, claudeBin, add...); out.err != nil {
				t.Fatalf("claude %q: %v\nstdout:\n%s\nstderr:\n%s", add, out.err, out.stdout, out.stderr)
			}
			out := runClient(ctx, project, env, claudeBin, "mcp", "list")
			if out.err != nil || !connected.MatchString(out.stdout) {
				t.Fatalf("claude mcp list does not report mcpvisor connected (err %v):\nstdout:\n%s\nstderr:\n%s",
					out.err, out.stdout, out.stderr)
			}
		})
	}
}
