package actors

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testctx"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/messages"
)

// A server whose catalog is past the entry bound runs as usual; its
// catalog is just not cached.
func TestCatalogCache_OversizedServerCatalogIsNotCached(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"small": {"command": "x"}, "big": {"command": "x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dial := func(spec messages.ServerSpec) (mcp.Transport, error) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		n := 1
		if spec.Name == "big" {
			n = 20
		}
		for i := range n {
			srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%02d", i), Description: strings.Repeat("d", 200), InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
		}
		st, ct := mcp.NewInMemoryTransports()
		_, err := srv.Connect(context.Background(), st, nil)
		return ct, err
	}
	core, logs := observer.New(zapcore.DebugLevel)
	sup, err := Start(Options{ConfigPaths: []string{cfg}, Dial: dial, DisableWatch: true, ProbeInterval: -1, Logger: zap.New(core),
		Clock: quartz.NewMock(t), CacheDir: dir, cacheEntryBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	feed := sup.Follow(0, 256)
	defer feed.Close()
	ready := map[string]bool{}
	for len(ready) < 2 {
		select {
		case env := <-feed.C:
			if sc, ok := env.Event.(*messages.ServerStateChanged); ok && sc.To == messages.StateReady {
				ready[sc.Server] = true
			}
		case <-ctx.Done():
			t.Fatalf("servers not ready: %v", ctx.Err())
		}
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := filepath.Glob(filepath.Join(dir, "catalogs", "*.json")); len(got) != 1 || !strings.HasPrefix(filepath.Base(got[0]), "small-") {
		t.Errorf("cache files %v, want small's only", got)
	}
	if n := logs.FilterMessage("catalog too large to cache").FilterField(zap.String("server", "big")).Len(); n != 1 {
		t.Errorf("%d debug lines about big's catalog, want 1", n)
	}
}
