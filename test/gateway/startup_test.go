package gateway_test

import (
	"context"
	"path/filepath"
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
