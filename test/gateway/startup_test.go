package gateway_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// startServe runs `mcpvisor serve args...` over stdio for one client and
// returns that client; the gateway stops with the test.
func startServe(t *testing.T, ctx context.Context, args ...string) *client {
	t.Helper()
	cmd := serveCommand(args...)
	stderr := &testkit.SyncBuffer{}
	cmd.Stderr = stderr
	c := connect(t, ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, "")
	t.Cleanup(func() {
		_ = c.cs.Close()
		if t.Failed() {
			t.Logf("mcpvisor serve stderr:\n%s", stderr.String())
		}
	})
	return c
}

// A one-shot client (tools/list right after initialize, as the MCP
// Inspector's CLI does) sees every server that is ready within the startup
// wait, slow starters included, not only the quickest.
func TestServe_OneShotClientSeesEveryServerReadyWithinTheStartupWait(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{
		"alpha": example("alpha"),
		"beta":  testkit.Example(bin, "--name", "beta", "--init-delay", "300ms"),
		"gamma": testkit.Example(bin, "--name", "gamma", "--init-delay", "700ms"),
	})
	// The wait is long: the settled fleet, not the wait, answers the list.
	c := startServe(t, ctx, "--config", cfg, "--startup-wait", "1m")
	if got, want := c.names(ctx), qualified("alpha", "beta", "gamma"); !cmp.Equal(got, want) {
		t.Fatalf("first tools/list (-want +got):\n%s", cmp.Diff(want, got))
	}
}

// A call to a tool of a configured server that is still starting is a
// result with isError saying so (never "unknown tool"), and the server's
// arrival, once the startup wait is over, is a tools/list_changed. Its
// start is held on a FIFO the test opens.
func TestServe_CallToAStartingServerSaysItIsStarting(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{
		"alpha": example("alpha"),
		// The shell waits for a line on the FIFO, then becomes the server,
		// which finds the handshake waiting on its stdin.
		"gated": {Command: "/bin/sh", Args: []string{"-c", `read _ < "$1" && exec "$2" example-server --name gated`, "sh", gate, bin}, ConnectTimeout: "5m"},
	})
	c := startServe(t, ctx, "--config", cfg, "--startup-wait", "200ms")
	c.waitTools(ctx, qualified("alpha"))
	text, isErr := c.call(ctx, "gated__echo", map[string]any{"message": "hi"})
	if !isErr || !strings.Contains(text, `server "gated" is starting, try again shortly`) {
		t.Fatalf("gated__echo = %q (isError %v), want an isError result saying gated is starting", text, isErr)
	}

	opened := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(gate, os.O_WRONLY, 0) // blocks until the shell reads
		if err == nil {
			_, err = f.WriteString("go\n")
			_ = f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the gated server never waited on its FIFO")
	}
	c.expectChange(ctx, qualified("alpha", "gated"))
	if text, isErr := c.call(ctx, "gated__echo", map[string]any{"message": "hi"}); isErr || text != "hi" {
		t.Fatalf("gated__echo once ready = %q (isError %v)", text, isErr)
	}
}
