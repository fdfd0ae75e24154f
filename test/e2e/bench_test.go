package e2e_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// Tool-call latency over stdio to the example server: through the
// session actor versus a raw go-sdk session to the same server.
func BenchmarkCallTool_Stdio(b *testing.B) {
	ctx := context.Background()
	args := map[string]any{"message": "x"}
	b.Run("direct", func(b *testing.B) {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "example-server")}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("supervisor", func(b *testing.B) {
		cfg := filepath.Join(b.TempDir(), ".mcp.json")
		testkit.WriteConfig(b, cfg, map[string]testkit.Server{"s": testkit.Example(bin)})
		sup, err := actors.Start(actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Logger: zap.NewNop()})
		if err != nil {
			b.Fatal(err)
		}
		defer sup.Close()
		rec := actorstest.Record(b, sup)
		rec.WaitState(ctx, 0, "s", messages.StateReady)
		for b.Loop() {
			if _, err := sup.CallTool(ctx, "s__echo", args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
