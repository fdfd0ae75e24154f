package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
)

// callTool routes a tools/call of an exposed tool (server's tool, named
// qualified across the fleet) to the fleet.
func (g *Gateway) callTool(ctx context.Context, req *mcp.CallToolRequest, c claim[*mcp.Tool]) (*mcp.CallToolResult, error) {
	exposed := c.item.Name
	ctx, opts := callOptions(ctx, req.Session, req.Params, clientCapabilities(req))
	res, err := g.src.CallTool(ctx, c.qualified, rawArguments(req.Params.Arguments), opts...)
	if err != nil {
		if ctx.Err() == nil {
			g.log.Debug("tool call failed", zap.String("tool", exposed), zap.Error(err))
		}
		return mapCallError(c.server, exposed, err)
	}
	return passThrough(res), nil
}

// rawArguments are a call's arguments as they go upstream: the client's
// raw JSON, not decoded; none (or null) goes as nil, which the go-sdk
// client sends as {}.
func rawArguments(raw json.RawMessage) any {
	if raw := bytes.TrimSpace(raw); len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	return raw
}

// mapCallError turns a Source.CallTool error into what the client gets.
// What the model can act on (wait for a server, retry, report a crash) is
// a tool result with isError set; what is wrong with the request itself is
// a JSON-RPC error, as the go-sdk answers for any unknown tool.
//
//	*actors.StartError                  isError: the server did not start, and why
//	ErrNotReady                         isError: server not ready, try again shortly
//	ErrCallTimeout                      isError: the timeout
//	ErrUpstream wrapping *jsonrpc.Error that error, same code, message and data
//	ErrUpstream (transport, crash)      isError: server failed the call
//	ErrUnknownServer, ErrUnknownTool,
//	ErrBadToolName                      -32602 unknown tool (the fleet dropped it)
//	ErrCanceled                         the error (the client has gone)
//	ErrClosed, anything else            -32603
func mapCallError(server, name string, err error) (*mcp.CallToolResult, error) {
	var wire *jsonrpc.Error
	var start *actors.StartError
	switch {
	case errors.As(err, &start): // it was waited for (early.go)
		return errorResult(fmt.Sprintf("%s: %v", name, start)), nil
	case errors.Is(err, actors.ErrNotReady):
		return errorResult(fmt.Sprintf("%s: server %q is not ready (starting, restarting or failed); try again shortly", name, server)), nil
	case errors.Is(err, actors.ErrCallTimeout):
		return errorResult(fmt.Sprintf("%s: %v", name, err)), nil
	case errors.Is(err, actors.ErrUpstream) && errors.As(err, &wire):
		return nil, &jsonrpc.Error{Code: wire.Code, Message: wire.Message, Data: wire.Data}
	case errors.Is(err, actors.ErrUpstream):
		return errorResult(fmt.Sprintf("%s: server %q failed the call: %v", name, server, err)), nil
	case errors.Is(err, actors.ErrUnknownServer), errors.Is(err, actors.ErrUnknownTool), errors.Is(err, actors.ErrBadToolName):
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	case errors.Is(err, actors.ErrCanceled):
		return nil, err
	case errors.Is(err, actors.ErrClosed):
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcpvisor is shutting down"}
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s: %v", name, err)}
	}
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

// passThrough returns the upstream result as the client's: unchanged but
// for the upstream's serverInfo in _meta (the gateway's session puts its
// own there on 2026-07-28). Input requests pass through too: only a
// client that answers them itself gets them (see callOptions).
func passThrough(res *mcp.CallToolResult) *mcp.CallToolResult {
	if res == nil {
		return &mcp.CallToolResult{Content: []mcp.Content{}}
	}
	_, hasInfo := res.Meta[mcp.MetaKeyServerInfo]
	if !hasInfo && (res.Content != nil || len(res.InputRequests) > 0) {
		return res
	}
	cp := *res
	if hasInfo {
		cp.Meta = maps.Clone(res.Meta)
		delete(cp.Meta, mcp.MetaKeyServerInfo)
		if len(cp.Meta) == 0 {
			cp.Meta = nil
		}
	}
	if cp.Content == nil && len(cp.InputRequests) == 0 {
		cp.Content = []mcp.Content{} // "content" is required: never null
	}
	return &cp
}
