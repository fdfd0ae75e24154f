package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
)

// input set reads the value from stdin and stores it 0600 in the user's
// config directory; list shows ids only; check then judges the entry with
// the value. The value shows in no output of any of them.
func TestInput_SetListUnsetAndTheValueNeverShows(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
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
