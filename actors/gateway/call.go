package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
)

// handler routes calls of one exposed tool (server's tool, named
// qualified across the fleet, exposed as exposed) to the fleet.
func (g *Gateway) handler(server, qualified, exposed string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// The raw arguments go upstream as they came; none (or null)
		// goes as {} (the go-sdk client's default).
		var args any
		if raw := bytes.TrimSpace(req.Params.Arguments); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
			args = req.Params.Arguments
		}
		ctx, opts := callOptions(ctx, req.Session, req.Params, req.ClientCapabilities())
		res, err := g.src.CallTool(ctx, qualified, args, opts...)
		if err != nil {
			if ctx.Err() == nil {
				g.log.Debug("tool call failed", zap.String("tool", exposed), zap.Error(err))
			}
			return mapCallError(server, exposed, err)
		}
		return passThrough(server, res), nil
	}
}

// mapCallError turns a Source.CallTool error into what the client gets.
// What the model can act on (wait for a server, retry, report a crash) is
// a tool result with isError set; what is wrong with the request itself is
// a JSON-RPC error, as the go-sdk answers for any unknown tool.
//
//	ErrNotReady                         isError: server not ready, try again shortly
//	ErrCallTimeout                      isError: the timeout
//	ErrUpstream wrapping *jsonrpc.Error that error, same code and message
//	ErrUpstream (transport, crash)      isError: server failed the call
//	ErrUnknownServer, ErrUnknownTool,
//	ErrBadToolName                      -32602 unknown tool (the fleet dropped it)
//	ErrCanceled                         the error (the client has gone)
//	ErrClosed, anything else            -32603
func mapCallError(server, name string, err error) (*mcp.CallToolResult, error) {
	var wire *jsonrpc.Error
	switch {
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
func passThrough(server string, res *mcp.CallToolResult) *mcp.CallToolResult {
	if res == nil {
		return &mcp.CallToolResult{Content: []mcp.Content{}}
	}
	if _, ok := res.Meta[mcp.MetaKeyServerInfo]; ok {
		meta := maps.Clone(res.Meta)
		delete(meta, mcp.MetaKeyServerInfo)
		if len(meta) == 0 {
			meta = nil
		}
		cp := *res
		cp.Meta = meta
		res = &cp
	}
	return res
}
