package actors_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// fleet serves in-memory go-sdk servers to the supervisor through
// Options.Dial: each name maps to a constructor called on every dial (a
// retry gets a fresh server); a nil constructor never answers the
// handshake.
type fleet struct {
	t       *testing.T
	mu      sync.Mutex
	servers map[string]func() *mcp.Server
	dials   map[string]int
}

func newFleet(t *testing.T, servers map[string]func() *mcp.Server) *fleet {
	return &fleet{t: t, servers: servers, dials: map[string]int{}}
}

func (f *fleet) dial(spec messages.ServerSpec) (mcp.Transport, error) {
	f.mu.Lock()
	mk, ok := f.servers[spec.Name]
	f.dials[spec.Name]++
	f.mu.Unlock()
	if !ok || mk == nil {
		// Someone reads on the other end but never answers: the handshake
		// hangs until the client gives up and closes its end.
		client, server := net.Pipe()
		go func() { _, _ = io.Copy(io.Discard, server) }()
		return &mcp.IOTransport{Reader: client, Writer: client}, nil
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := mk().Connect(context.Background(), st, nil); err != nil {
		return nil, err
	}
	return ct, nil
}

// configFor writes a config naming each server (the command is never run:
// the fleet dials them) and returns its path.
func configFor(t *testing.T, names ...string) string {
	t.Helper()
	servers := map[string]any{}
	for _, n := range names {
		servers[n] = map[string]any{"command": "in-memory"}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startInMemory starts a supervisor on the mock clock, with no watcher
// and no probes unless opts says otherwise.
func startInMemory(t *testing.T, clock *quartz.Mock, f *fleet, opts actors.Options) (*actors.Supervisor, *testkit.Recorder) {
	t.Helper()
	opts.Clock, opts.Dial, opts.DisableWatch = clock, f.dial, true
	if opts.Logger == nil {
		opts.Logger = zaptest.NewLogger(t)
	}
	if opts.ProbeInterval == 0 {
		opts.ProbeInterval = -1
	}
	sup, err := actors.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := testkit.Record(t, sup)
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return sup, rec
}

func toolServer(tools ...*mcp.Tool) func() *mcp.Server {
	return func() *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, &mcp.ServerOptions{HasTools: true})
		for _, tool := range tools {
			srv.AddTool(tool, echoHandler)
		}
		return srv
	}
}

func tool(name, desc string) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: desc, InputSchema: map[string]any{"type": "object", "properties": map[string]any{}}}
}

func echoHandler(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: req.Params.Name}}}, nil
}
