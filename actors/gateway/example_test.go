package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Mounting the gateway, and the HTTP API, in an agent runtime's own HTTP
// server, next to its own routes: one call each. Clients reach the
// fleet's tools at /mcp (streamable HTTP, with the token), the API at
// /api/v1/..., and the runtime keeps /hello for itself. The first
// tools/list waits until the fleet has started (StartupWait).
func ExampleMount() {
	dir, _ := os.MkdirTemp("", "mcpvisor-gateway-example-")
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, ".mcp.json")
	_ = os.WriteFile(cfg, []byte(`{"mcpServers": {"notes": {"command": "notes-server"}}}`), 0o600)
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{cfg}, Dial: notesServer, DisableWatch: true, CacheDir: "-"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sup.Close()

	const token = "a-token-the-runtime-hands-its-clients"
	gw := gateway.Mount(sup, gateway.MountOptions{StartupWait: 10 * time.Second})
	defer gw.Close()
	mcpHandler, _ := gw.Handler(gateway.HTTPOptions{Token: token})
	api, _ := httpapi.New(httpapi.Options{Fleet: sup, Token: token})
	mux := http.NewServeMux()
	mux.Handle(gateway.Path, mcpHandler)
	mux.Handle("/api/", api.Handler())
	mux.HandleFunc("/hello", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "the runtime's own route") })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + gateway.Path, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range tools.Tools {
		fmt.Println("tool:", t.Name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "notes__echo", Arguments: map[string]any{"message": "hello"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("echo:", res.Content[0].(*mcp.TextContent).Text)
	resp, err := (&http.Client{Transport: bearer{token, http.DefaultTransport}}).Get(srv.URL + "/api/v1/tools")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println("api:", resp.Status)
	// Output:
	// tool: notes__echo
	// echo: hello
	// api: 200 OK
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
