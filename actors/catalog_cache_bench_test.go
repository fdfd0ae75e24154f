package actors_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// BenchmarkSupervisor_WarmStartFromTheCatalogCache measures the
// Supervisor's half of a warm start: 200 servers (5 tools each) whose
// catalogs are in the cache and whose handshakes never complete, from
// Start until Tools() lists all 1000 (every server's cached tools
// announced). Teardown is not timed. The gateway's half is
// BenchmarkGateway_WarmStartFromTheCatalogCache.
func BenchmarkSupervisor_WarmStartFromTheCatalogCache(b *testing.B) {
	const servers, perServer = 200, 5
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	names := make([]string, servers)
	mk := map[string]func() *mcp.Server{}
	for i := range names {
		names[i] = fmt.Sprintf("s%03d", i)
		var tools []*mcp.Tool
		for j := range perServer {
			tools = append(tools, tool(fmt.Sprintf("tool%d", j), "A tool of a benchmark server."))
		}
		mk[names[i]] = toolServer(tools...)
	}
	dir, config := b.TempDir(), filepath.Join(b.TempDir(), "mcp.json")
	entries := map[string]any{}
	for _, n := range names {
		entries[n] = map[string]any{"command": "in-memory"}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": entries})
	if err := os.WriteFile(config, data, 0o600); err != nil {
		b.Fatal(err)
	}
	open := &heldServers{mk: mk, released: make(chan struct{})}
	open.release()
	warm, err := actors.Start(actors.Options{ConfigPaths: []string{config}, CacheDir: dir, Dial: open.dial,
		DisableWatch: true, ProbeInterval: -1, Clock: quartz.NewMock(b).WithLogger(quartz.NoOpLogger), Logger: zap.NewNop()})
	if err != nil {
		b.Fatal(err)
	}
	awaitTools(ctx, b, warm, servers, servers*perServer)
	if err := warm.Close(); err != nil {
		b.Fatal(err)
	}
	held := &heldServers{mk: mk, released: make(chan struct{})} // never released

	for b.Loop() {
		sup, err := actors.Start(actors.Options{ConfigPaths: []string{config}, CacheDir: dir, Dial: held.dial, DisableWatch: true,
			ProbeInterval: -1, Clock: quartz.NewMock(b).WithLogger(quartz.NoOpLogger), Logger: zap.NewNop()})
		if err != nil {
			b.Fatal(err)
		}
		awaitTools(ctx, b, sup, servers, servers*perServer)
		b.StopTimer()
		if err := sup.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// awaitTools follows sup's events until every one of servers has
// announced its tools, then checks that Tools() lists n.
func awaitTools(ctx context.Context, b *testing.B, sup *actors.Supervisor, servers, n int) {
	b.Helper()
	feed := sup.Follow(0, 4096)
	defer feed.Close()
	seen := map[string]bool{}
	for len(seen) < servers {
		select {
		case env := <-feed.C:
			if tc, ok := env.Event.(*messages.ToolsChanged); ok && len(tc.Tools) > 0 {
				seen[tc.Server] = true
			}
		case <-ctx.Done():
			b.Fatalf("%d servers announced their tools, want %d: %v", len(seen), servers, ctx.Err())
		}
	}
	if got := len(sup.Tools()); got != n {
		b.Fatalf("%d tools listed, want %d", got, n)
	}
}
