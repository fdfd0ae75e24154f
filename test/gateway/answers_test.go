package gateway_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// 64 callers share one stdio session of `mcpvisor serve` (as an editor's
// agents do), 20 calls each of the example server's echo, some asking
// for progress: every call is answered with its own message, and on the
// wire every tools/call got exactly one response. The test's context is
// the only bound: a lost or stuck answer fails it rather than hanging.
func TestServe_64CallersOverStdioEachAnsweredExactlyOnce(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": example("alpha")})
	stderr := &testkit.SyncBuffer{}
	cmd := serveCommand("--config", cfg)
	cmd.Stderr = stderr
	counter := testkit.CountAnswers(&mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, "tools/call")
	c := connect(t, ctx, counter, "")
	t.Cleanup(func() {
		_ = c.cs.Close()
		if t.Failed() {
			t.Logf("mcpvisor serve stderr:\n%s", stderr.String())
		}
	})
	c.waitTools(ctx, qualified("alpha"))

	const callers, calls = 64, 20
	for _, err := range testkit.CallersAnswered(ctx, []*mcp.ClientSession{c.cs}, "alpha__echo", callers, calls) {
		t.Error(err)
	}
	for _, err := range counter.Check(callers * calls) {
		t.Error(err)
	}
}
