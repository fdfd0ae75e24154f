package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// A token file that another user owns, or whose directory another user
// can write (and so can swap the token for one they know), is refused by
// `run` and by the clients, naming the path and the fix. The other user
// is real: the file or directory is given to testkit.Stranger.
func TestToken_FileAnotherUserControlsIsRefused(t *testing.T) {
	t.Parallel()
	other := testkit.Stranger(t)
	ctx := actorstest.Context(t)
	me := strconv.Itoa(os.Geteuid())
	tok := strings.Repeat("k", 43)

	owned := filepath.Join(t.TempDir(), "token")
	writeToken(t, owned, tok, 0o600)
	other.Chown(t, owned)
	wantOwned := "token file " + owned + " is owned by uid " + strconv.Itoa(other.UID)
	mcpvisor(ctx, stateEnv(t), "", "run", "--config", emptyConfig(t), "--token-file", owned).want(t, cli.ExitUsage, "", wantOwned)
	mcpvisor(ctx, stateEnv(t), "", "run", "--config", emptyConfig(t), "--token-file", owned).want(t, cli.ExitUsage, "", "chown "+me+" "+owned)

	env := stateEnv(t)
	def := filepath.Join(env["XDG_STATE_HOME"], "mcpvisor", "token")
	writeToken(t, def, tok, 0o600)
	if err := os.Chmod(filepath.Dir(def), 0o777); err != nil {
		t.Fatal(err)
	}
	wantDir := "directory " + filepath.Dir(def) + " is writable by others (mode 0777): refused; run chmod 700 " + filepath.Dir(def)
	mcpvisor(ctx, env, "", "run", "--config", emptyConfig(t)).want(t, cli.ExitUsage, "", wantDir)

	clientEnv := daemon(t, statusFleet(), tok)
	mcpvisor(ctx, clientEnv, "", "status", "--token-file", owned).want(t, cli.ExitFailed, "", wantOwned)
}
