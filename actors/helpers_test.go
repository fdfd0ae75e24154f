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

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// fleet serves in-memory go-sdk servers to the supervisor through
// Options.Dial: each name maps to a constructor called on every dial (a
// retry gets a fresh server); a nil constructor never answers the
// handshake.
type fleet struct {
	t       *testing.T
	mu      sync.Mutex
	servers map[string]func() *mcp.Server
	dials   map[string]int
	broken  map[string]error      // dials of these names fail
	live    map[string]liveServer // the newest server session per name
}

// liveServer is a server session of the fleet and its end of the pipe.
type liveServer struct {
	*mcp.ServerSession
	pipe net.Conn
}

func newFleet(t *testing.T, servers map[string]func() *mcp.Server) *fleet {
	return &fleet{t: t, servers: servers, dials: map[string]int{}, broken: map[string]error{}, live: map[string]liveServer{}}
}

// breakDials makes every later dial of name fail with err (nil mends it).
func (f *fleet) breakDials(name string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.broken[name] = err
}

// kill drops name's newest server session as a dying process would: its
// end of the pipe closes. (ServerSession.Close would wait for the
// session's requests, and parks for good on a subscriptions/listen the
// client sent just before it looked: go-sdk v1.8.0.)
func (f *fleet) kill(name string) {
	f.mu.Lock()
	ss, ok := f.live[name]
	f.mu.Unlock()
	if !ok {
		f.t.Fatalf("kill %s: no live session", name)
	}
	_ = ss.pipe.Close()
}

func (f *fleet) dialCount(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dials[name]
}

func (f *fleet) dial(spec messages.ServerSpec) (mcp.Transport, error) {
	f.mu.Lock()
	mk, ok := f.servers[spec.Name]
	f.dials[spec.Name]++
	broken := f.broken[spec.Name]
	f.mu.Unlock()
	if broken != nil {
		return nil, broken
	}
	if !ok || mk == nil {
		// Someone reads on the other end but never answers: the handshake
		// hangs until the client gives up and closes its end.
		client, server := net.Pipe()
		go func() { _, _ = io.Copy(io.Discard, server) }()
		return &mcp.IOTransport{Reader: client, Writer: client}, nil
	}
	server, client := net.Pipe()
	ss, err := mk().Connect(context.Background(), &mcp.IOTransport{Reader: server, Writer: server}, nil)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.live[spec.Name] = liveServer{ServerSession: ss, pipe: server}
	f.mu.Unlock()
	return &mcp.IOTransport{Reader: client, Writer: client}, nil
}

// configFor writes a config naming each server (the command is never run:
// the fleet dials them) and returns its path.
func configFor(t *testing.T, names ...string) string {
	t.Helper()
	servers := map[string]any{}
	for _, n := range names {
		servers[n] = map[string]any{"command": "in-memory"}
	}
	path := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, path, servers)
	return path
}

// writeConfig writes {"mcpServers": servers} to path.
func writeConfig(t *testing.T, path string, servers map[string]any) {
	t.Helper()
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// reload tells the config actor the files may have changed (the watcher
// is off in these tests) and waits for the read to be applied.
func reload(t *testing.T, ctx context.Context, sup *actors.Supervisor, rec *actorstest.Recorder) {
	t.Helper()
	mark := rec.Len()
	actorstest.Send(t, sup, actorstest.Config, &messages.FileChanged{})
	rec.WaitFor(ctx, mark, "config read", func(e messages.Event) bool { _, ok := e.(*messages.ConfigLoaded); return ok })
}

// startInMemory starts a supervisor on the mock clock, with no watcher
// and no probes unless opts says otherwise.
func startInMemory(t *testing.T, clock *quartz.Mock, f *fleet, opts actors.Options) (*actors.Supervisor, *actorstest.Recorder) {
	t.Helper()
	return startWithDial(t, clock, f.dial, opts)
}

// startWithDial is startInMemory with a Dial of the test's own.
func startWithDial(t *testing.T, clock *quartz.Mock, dial func(messages.ServerSpec) (mcp.Transport, error), opts actors.Options) (*actors.Supervisor, *actorstest.Recorder) {
	t.Helper()
	opts.Clock, opts.Dial, opts.DisableWatch = clock, dial, true
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
	rec := actorstest.Record(t, sup)
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return sup, rec
}

func toolServer(tools ...*mcp.Tool) func() *mcp.Server {
	return func() *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}})
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
