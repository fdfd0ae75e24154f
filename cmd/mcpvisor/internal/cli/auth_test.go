package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
)

// authEnv is an environment whose token store is empty and whose daemon
// is unreachable.
func authEnv(t *testing.T) (map[string]string, oauth.Store) {
	state := t.TempDir()
	return map[string]string{"XDG_STATE_HOME": state, "HOME": t.TempDir(), "MCPVISOR_ADDR": "127.0.0.1:1"},
		oauth.Store{Dir: filepath.Join(state, "mcpvisor", "oauth")}
}

// auth status shows what is stored but never the token, and refuses a
// token file others can read, saying how to fix it.
func TestAuth_StatusShowsNoTokenAndRefusesAReadableFile(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env, store := authEnv(t)
	for _, name := range []string{"alpha", "beta"} {
		if err := store.Save(&oauth.Record{Server: name, Resource: "https://" + name + ".example/mcp", TokenURL: "https://as.example/token",
			ClientID: "c", AccessToken: "SECRET-ACCESS-" + name, RefreshToken: "SECRET-REFRESH-" + name, Scopes: []string{"read"},
			Expiry: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
	}
	r := mcpvisor(ctx, env, "", "auth", "status")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "alpha") || !strings.Contains(r.stdout, "2030-01-02T03:04:05Z") {
		t.Fatalf("auth status: %+v", r)
	}
	files, _ := filepath.Glob(filepath.Join(store.Dir, "beta-*.json"))
	if len(files) != 1 {
		t.Fatalf("beta's token file: %v", files)
	}
	if err := os.Chmod(files[0], 0o640); err != nil {
		t.Fatal(err)
	}
	r = mcpvisor(ctx, env, "", "auth", "status", "--json")
	if r.code != cli.ExitFailed || !strings.Contains(r.stderr, "mode 0640") || !strings.Contains(r.stderr, "chmod 600") {
		t.Errorf("a readable token file: %+v", r)
	}
	if strings.Contains(r.stdout+r.stderr, "SECRET-") {
		t.Errorf("token text in auth status:\n%s%s", r.stdout, r.stderr)
	}
}

func TestAuth_LogoutForgetsTheServersTokens(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env, store := authEnv(t)
	if err := store.Save(&oauth.Record{Server: "alpha", Resource: "https://a.example/mcp", AccessToken: "a"}); err != nil {
		t.Fatal(err)
	}
	if r := mcpvisor(ctx, env, "", "auth", "logout", "alpha"); r.code != cli.ExitOK || !strings.Contains(r.stdout, "forgot 1 token") {
		t.Fatalf("logout: %+v", r)
	}
	if _, err := store.Load("alpha", "https://a.example/mcp"); err == nil {
		t.Error("the token is still stored")
	}
}

func TestAuth_Usage(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env, _ := authEnv(t)
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"a": {"url": "http://127.0.0.1:1/mcp"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"auth"}, cli.ExitUsage, "auth login NAME"},
		{[]string{"auth", "login"}, cli.ExitUsage, "name one server"},
		{[]string{"auth", "login", "a", "b"}, cli.ExitUsage, "name one server"},
		{[]string{"auth", "login", "nope", "--config", cfg}, cli.ExitFailed, `no server "nope"`},
		{[]string{"auth", "frobnicate"}, cli.ExitUsage, "unknown subcommand"},
	} {
		r := mcpvisor(ctx, env, "", tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, r.code, r.stderr, tt.code, tt.want)
		}
	}
}
