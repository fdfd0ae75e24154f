package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Serving mcpvisor's HTTP API from an agent runtime's own process, over
// its own Supervisor: what `mcpvisor run` does, on a listener of your
// choice. The API needs a bearer token on every route but /healthz.
func Example() {
	dir, _ := os.MkdirTemp("", "mcpvisor-httpapi-example-")
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
	waitReady(ctx, sup, "notes")

	const token = "example-token-0123456789abcdef0123456789" // read it from a 0600 file
	api, err := httpapi.New(httpapi.Options{Fleet: sup, Token: token})
	if err != nil {
		fmt.Println(err)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	serving, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- api.Serve(serving, ln) }()
	defer func() {
		stop() // ends event streams and calls, then shuts the server down
		<-served
	}()

	base := "http://" + ln.Addr().String()
	get := func(path string) string {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err.Error()
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return fmt.Sprintf("%d %s", res.StatusCode, strings.TrimSpace(string(body)))
	}
	fmt.Println("healthz:", get("/healthz"))
	fmt.Println("tools:", get("/api/v1/tools"))
	// Output:
	// healthz: 200 {"status":"ok"}
	// tools: 200 {"tools":[{"name":"notes__echo","server":"notes","prefix":"notes","tool":"echo","description":"Echoes a message.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false}}]}
}

// waitReady follows sup's events until server is ready.
func waitReady(ctx context.Context, sup *actors.Supervisor, server string) {
	feed := sup.Follow(0, 64)
	defer feed.Close()
	for {
		select {
		case env := <-feed.C:
			if sc, ok := env.Event.(*messages.ServerStateChanged); ok && sc.Server == server && sc.To == messages.StateReady {
				return
			}
		case <-ctx.Done():
			return
		}
	}
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
