package gateway_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// A read of a URI no server provides names the URI in the message, which
// is all most clients show, and keeps the go-sdk's code and data.
func TestGateway_ResourceNotFoundNamesTheURI(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	h := startGatewayOver(t, &fakeSource{tools: []messages.Tool{tool("alpha", "echo", "Echoes.")}}, nil)
	c := h.connectInMemory(ctx, "")
	c.waitTools(ctx, "alpha__echo")
	const uri = "mem://nobody/readme"
	_, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		t.Fatalf("read of %s: %v, want a JSON-RPC error", uri, err)
	}
	var data struct{ URI string }
	if wire.Code != jsonrpc.CodeInvalidParams || !strings.Contains(wire.Message, uri) || json.Unmarshal(wire.Data, &data) != nil || data.URI != uri {
		t.Errorf("read of %s: code %d, message %q, data %s; want code %d, the URI in the message and in data",
			uri, wire.Code, wire.Message, wire.Data, jsonrpc.CodeInvalidParams)
	}
}
