package cli_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// boomConfig is a config whose one server reads ${BOOM}.
func boomConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "a", "env": {"K": "${BOOM}"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// panicOnBoom is the environment env, whose lookup of BOOM panics, as a
// broken embedder's LookupEnv would.
func panicOnBoom(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		if k == "BOOM" {
			panic("lookup exploded")
		}
		v, ok := env[k]
		return v, ok
	}
}

// When the supervisor fails, `run` and `serve` exit non-zero (no signal,
// no client going away) and their last line says what happened.
func TestRunAndServe_FailedSupervisorExitsNonZeroWithOneLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run", []string{"run", "--config", "CONFIG", "--listen", "127.0.0.1:0"}},
		{"serve", []string{"serve", "--config", "CONFIG"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			args := append([]string{}, tc.args...)
			args[2] = boomConfig(t)
			stdin, hold := io.Pipe() // a client that never goes away
			defer hold.Close()
			var stdout, stderr testkit.SyncBuffer
			exited := make(chan int, 1)
			go func() {
				exited <- cli.Main(ctx, args, cli.IO{Stdin: stdin, Stdout: &stdout, Stderr: &stderr, LookupEnv: panicOnBoom(stateEnv(t))})
			}()
			var code int
			select {
			case code = <-exited:
			case <-ctx.Done():
				t.Fatalf("mcpvisor %s still running after its supervisor failed; stderr:\n%s", tc.name, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			want := "mcpvisor " + tc.name + ": supervisor failed: the config actor failed: panic: reading the config files: lookup exploded"
			if code != cli.ExitFailed || lines[len(lines)-1] != want {
				t.Fatalf("exit %d, last line %q; want %d and %q; stderr:\n%s", code, lines[len(lines)-1], cli.ExitFailed, want, stderr.String())
			}
			n := 0
			for _, l := range lines {
				if strings.HasPrefix(l, "mcpvisor "+tc.name+": ") {
					n++
				}
			}
			if tc.name == "run" && n != 1 || tc.name == "serve" && n != 2 { // serve also says where it serves
				t.Errorf("%d lines of its own, want the failure said once; stderr:\n%s", n, stderr.String())
			}
		})
	}
}
