package actors_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// Embedding mcpvisor in an agent runtime: start it on a config file, wait
// for a server's tools, call one, then watch it recover, on the event
// stream, from the death of its server.
//
// Options.Dial connects the "notes" server to an in-memory MCP server so
// the example is self-contained (and can make it die); a real runtime
// leaves Dial nil and lists stdio or HTTP servers in its .mcp.json.
func Example() {
	dir, _ := os.MkdirTemp("", "mcpvisor-example-")
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, ".mcp.json")
	_ = os.WriteFile(cfg, []byte(`{"mcpServers": {"notes": {"command": "notes-server"}}}`), 0o600)

	sup, err := actors.Start(actors.Options{
		ConfigPaths: []string{cfg},
		Dial:        notes.dial,
		Backoff:     reconciler.Backoff{Initial: 10 * time.Millisecond, Max: 10 * time.Millisecond},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sup.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Follow from the first event: nothing since Start is missed.
	events := sup.Follow(0, 256)
	defer events.Close()

	ready := waitForState(ctx, events, "notes", messages.StateReady)
	for _, t := range sup.Tools() {
		fmt.Println("tool:", actors.QualifiedName(t.Prefix, t.Name))
	}
	res, err := sup.CallTool(ctx, "notes__echo", map[string]any{"message": "hello"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("echo:", res.Content[0].(*mcp.TextContent).Text)

	// The server dies (as a process would: its end of the connection
	// closes); mcpvisor notices at once and retries it with backoff.
	notes.die()
	failed := waitForState(ctx, events, "notes", messages.StateFailed)
	fmt.Println("failed:", failed.Error, "attempt", failed.Attempt)
	again := waitForState(ctx, events, "notes", messages.StateReady)
	fmt.Println("ready again on a new session:", again.Session != ready.Session)
	// Output:
	// tool: notes__echo
	// echo: hello
	// failed: session closed by the server attempt 1
	// ready again on a new session: true
}

// waitForState returns the next transition of server to state.
func waitForState(ctx context.Context, events *journal.Feed, server string, state messages.State) *messages.ServerStateChanged {
	for {
		select {
		case env := <-events.C:
			if sc, ok := env.Event.(*messages.ServerStateChanged); ok && sc.Server == server && sc.To == state && sc.From != state {
				return sc
			}
		case <-ctx.Done():
			return &messages.ServerStateChanged{}
		}
	}
}

// notesServer stands in for the "notes" server: each dial connects a new
// in-memory go-sdk server over a pipe; die closes the newest one's end.
type notesServer struct {
	mu   sync.Mutex
	pipe net.Conn
}

var notes notesServer

func (n *notesServer) dial(spec messages.ServerSpec) (mcp.Transport, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: spec.Name, Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes a message."},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Message string `json:"message"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
		})
	server, client := net.Pipe()
	if _, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: server, Writer: server}, nil); err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.pipe = server
	n.mu.Unlock()
	return &mcp.IOTransport{Reader: client, Writer: client}, nil
}

func (n *notesServer) die() {
	n.mu.Lock()
	defer n.mu.Unlock()
	_ = n.pipe.Close()
}
