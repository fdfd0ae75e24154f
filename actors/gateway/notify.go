package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The gateway serves its lists and routes its requests from its own
// indexes (list.go), not from items registered with the go-sdk's server:
// registering 50,000 resources and 5,000 tools one by one costs the SDK a
// schema re-decode per tool and a sorted insert per item. The go-sdk sends
// notifications/{tools,prompts,resources}/list_changed only from inside
// Server.Add* and Server.Remove* (Server.changeAndNotify is unexported),
// coalesced per kind over a 10ms quiet window, to every legacy session and
// every 2026-07-28 listener that asked for them. So the gateway keeps one
// sentinel item per kind registered and re-adds it to announce a change:
// one cheap Add* per applied event, whatever its size. The sentinels are
// never listed, called, got or read: every such request is answered from
// the indexes before it reaches the SDK's own handlers.
//
// The sentinel tool's schema has no x-mcp-header: over streamable HTTP the
// SDK checks a tools/call's Mcp-Param headers against the registered tool
// of that name, and finds none for the gateway's tools.
var (
	sentinelTool = &mcp.Tool{
		Name:        "mcpvisor-list-changed",
		Description: "Never listed: its re-registration announces a change of the gateway's tools.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}
	sentinelPrompt   = &mcp.Prompt{Name: "mcpvisor-list-changed"}
	sentinelResource = &mcp.Resource{URI: "mcpvisor:list-changed", Name: "mcpvisor-list-changed"}
)

func sentinelToolHandler(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return errorResult("not a tool"), nil
}

func sentinelPromptHandler(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", req.Params.Name)}
}

func sentinelResourceHandler(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return nil, resourceNotFound(req.Params.URI)
}

// announce has the go-sdk send kind's list_changed to every client that
// listens for it (after its quiet window). Resource templates share
// resources' notification.
func (g *Gateway) announce(kind messages.CatalogKind) {
	switch kind {
	case messages.KindTools:
		g.server.AddTool(sentinelTool, sentinelToolHandler)
	case messages.KindPrompts:
		g.server.AddPrompt(sentinelPrompt, sentinelPromptHandler)
	case messages.KindResources, messages.KindResourceTemplates:
		g.server.AddResource(sentinelResource, sentinelResourceHandler)
	}
}
