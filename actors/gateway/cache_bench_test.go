package gateway_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
)

// BenchmarkGateway_WarmStartFromTheCatalogCache measures a warm start:
// 200 servers (5 tools each) whose catalogs are in the cache and whose
// handshakes never complete, from Start until a gateway client's first
// tools/list has all 1000 tools. Teardown is not timed.
func BenchmarkGateway_WarmStartFromTheCatalogCache(b *testing.B) {
	const servers, perServer = 200, 5
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	names := make([]string, servers)
	mk := map[string]func() *mcp.Server{}
	for i := range names {
		names[i] = fmt.Sprintf("s%03d", i)
		var tools []*mcp.Tool
		for j := range perServer {
			tools = append(tools, memTool(fmt.Sprintf("tool%d", j), "A tool of a benchmark server."))
		}
		mk[names[i]] = toolsServer(tools...)
	}
	dir, config := b.TempDir(), cacheConfig(b, names...)
	warmGatewayCache(b, ctx, dir, config, mk)
	held := newHeldFleet(b, mk) // never released while measured

	for b.Loop() {
		sup, err := actors.Start(actors.Options{ConfigPaths: []string{config}, CacheDir: dir, Dial: held.dial, DisableWatch: true,
			ProbeInterval: -1, Clock: quartz.NewMock(b).WithLogger(quartz.NoOpLogger), Logger: zap.NewNop()})
		if err != nil {
			b.Fatal(err)
		}
		gw := gateway.Mount(sup, gateway.MountOptions{Logger: zap.NewNop(), StartupWait: gateway.DefaultStartupWait,
			Clock: quartz.NewMock(b).WithLogger(quartz.NoOpLogger)})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := gw.Server().Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				b.Fatal(err)
			}
			_ = t
			n++
		}
		if n != servers*perServer {
			b.Fatalf("first list had %d tools, want %d", n, servers*perServer)
		}

		b.StopTimer()
		_ = cs.Close()
		_ = ss.Wait()
		gw.Close()
		if err := sup.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
