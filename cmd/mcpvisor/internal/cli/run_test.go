package cli_test

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
)

// emptyConfig is a config file without servers.
func emptyConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Serving the API beyond loopback without a token is refused before
// anything starts.
func TestRun_NonLoopbackWithoutTokenIsRefused(t *testing.T) {
	t.Parallel()
	for _, listen := range []string{"0.0.0.0:0", ":0"} {
		r := mcpvisor(testContext(t), nil, "", "run", "--config", emptyConfig(t), "--listen", listen)
		r.want(t, cli.ExitUsage, "", "refusing to serve the HTTP API on "+listen+" without a token")
		if !strings.Contains(r.stderr, "MCPVISOR_TOKEN") || r.stdout != "" {
			t.Fatalf("stdout %q stderr %q: want nothing started and a hint to set a token", r.stdout, r.stderr)
		}
	}
}

func TestRun_EmptyTokenFileIsAUsageError(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mcpvisor(testContext(t), nil, "", "run", "--config", emptyConfig(t), "--token-file", file).want(t, cli.ExitUsage, "", "is empty")
}

func TestRun_TakenPortFailsFast(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := mcpvisor(testContext(t), nil, "", "run", "--config", emptyConfig(t), "--listen", l.Addr().String())
	r.want(t, cli.ExitFailed, "", "is another `mcpvisor run` using it? pass --listen HOST:PORT, or --listen off")
}

// run serves the API on the port it prints; an interrupt ends open event
// streams (their clients see the daemon go), stops everything, exit 0.
func TestRun_ServesTheAPIAndStopsCleanly(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	stdout := newLineReader()
	runCtx, interrupt := context.WithCancel(ctx)
	ran := make(chan int, 1)
	go func() {
		ran <- cli.Main(runCtx, []string{"run", "--config", emptyConfig(t), "--listen", "127.0.0.1:0"},
			cli.IO{Stdout: stdout, Stderr: io.Discard, LookupEnv: func(string) (string, bool) { return "", false }})
	}()
	var addr string
	for addr == "" {
		line := stdout.next(ctx, t)
		if rest, ok := strings.CutPrefix(line, "mcpvisor: HTTP API on http://"); ok {
			addr = rest
		}
	}
	env := map[string]string{"MCPVISOR_ADDR": addr}
	mcpvisor(ctx, env, "", "status").want(t, cli.ExitOK, "(no servers configured)", "")

	events := newLineReader()
	followed := make(chan int, 1)
	go func() {
		followed <- cli.Main(ctx, []string{"events", "--since", "0", "--json"},
			cli.IO{Stdout: events, Stderr: io.Discard, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	}()
	for !strings.Contains(events.next(ctx, t), `"type":"config.loaded"`) {
	}

	interrupt()
	if code := <-ran; code != cli.ExitOK {
		t.Fatalf("run exit %d after an interrupt, want 0", code)
	}
	if code := <-followed; code != cli.ExitNoDaemon {
		t.Fatalf("events exit %d once the daemon stopped, want 3", code)
	}
}
