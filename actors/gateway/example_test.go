package gateway_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Mounting the gateway in an agent runtime's own process: one MCP server
// whose tools are every supervised server's, kept in line with the fleet.
// Here an MCP client connects to it in memory, sees the "notes" server's
// tool appear and calls it; a runtime would instead serve gw.Server() to
// its model, or use ServeStdio or ServeListener.
func Example() {
	dir, _ := os.MkdirTemp("", "mcpvisor-gateway-example-")
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, ".mcp.json")
	_ = os.WriteFile(cfg, []byte(`{"mcpServers": {"notes": {"command": "notes-server"}}}`), 0o600)
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{cfg}, Dial: notesServer, DisableWatch: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sup.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	gw := gateway.New(sup, nil)
	// A client connected before the gateway follows the fleet is told of
	// every tool that appears.
	changed := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	serverSide, clientSide := mcp.NewInMemoryTransports()
	if _, err := gw.Server().Connect(ctx, serverSide, nil); err != nil {
		fmt.Println(err)
		return
	}
	cs, err := client.Connect(ctx, clientSide, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()

	// Follow first, then Run: no change falls between its load and the feed.
	feed := sup.Follow(journal.Live, 64)
	defer feed.Close()
	following, stop := context.WithCancel(ctx)
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		gw.Run(following, feed.C)
	}()
	defer func() {
		stop()
		<-ran
	}()

	for names := []string(nil); len(names) == 0; {
		select {
		case <-changed:
		case <-ctx.Done():
			fmt.Println("no tools:", ctx.Err())
			return
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, t := range res.Tools {
			names = append(names, t.Name)
		}
		if len(names) > 0 {
			fmt.Println("tools:", names)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "notes__echo", Arguments: map[string]any{"message": "hello"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("echo:", res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// tools: [notes__echo]
	// echo: hello
}

// notesServer stands in for the "notes" server: an in-memory MCP server
// with one tool.
func notesServer(spec messages.ServerSpec) (mcp.Transport, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: spec.Name, Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes a message."},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Message string `json:"message"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
		})
	serverSide, clientSide := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), serverSide, nil); err != nil {
		return nil, err
	}
	return clientSide, nil
}
