package gateway

import (
	"errors"
	"fmt"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
)

// mapRequestError turns an error of GetPrompt, ReadResource or Complete
// into the JSON-RPC error the client gets. Unlike a tool call, these
// requests have no isError result, so everything is an error; what the
// client can act on says so in its message.
//
//	ErrUpstream wrapping *jsonrpc.Error that error, same code, message and data
//	ErrUnknownResource                  -32602 resource not found (SEP-2164)
//	ErrUnknownServer, ErrUnknownPrompt,
//	ErrBadToolName, ErrBadReference     -32602 (what is unknown)
//	*actors.StartError                  -32603 the server did not start, and why
//	ErrNotReady                         -32603 server not ready, try again shortly
//	ErrCallTimeout, ErrUpstream         -32603 with the error
//	ErrCanceled                         the error (the client has gone)
//	ErrClosed, anything else            -32603
//
// server may be empty when the gateway does not know the owner.
func mapRequestError(what, server string, err error) error {
	var wire *jsonrpc.Error
	var start *actors.StartError
	switch {
	case errors.Is(err, actors.ErrUpstream) && errors.As(err, &wire):
		return &jsonrpc.Error{Code: wire.Code, Message: wire.Message, Data: wire.Data}
	case errors.Is(err, actors.ErrUnknownResource):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: resource not found", what)}
	case errors.Is(err, actors.ErrUnknownServer), errors.Is(err, actors.ErrUnknownPrompt),
		errors.Is(err, actors.ErrBadToolName), errors.Is(err, actors.ErrBadReference):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: %v", what, err)}
	case errors.As(err, &start): // it was waited for (early.go)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s: %v", what, start)}
	case errors.Is(err, actors.ErrNotReady):
		who := "its server"
		if server != "" {
			who = fmt.Sprintf("server %q", server)
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s: %s is not ready (starting, restarting or failed); try again shortly", what, who)}
	case errors.Is(err, actors.ErrCanceled):
		return err
	case errors.Is(err, actors.ErrClosed):
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcpvisor is shutting down"}
	default:
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s: %v", what, err)}
	}
}

// withoutServerInfo drops the upstream's serverInfo from a result's _meta
// (the gateway's session puts its own there on 2026-07-28).
func withoutServerInfo(meta mcp.Meta) mcp.Meta {
	if _, ok := meta[mcp.MetaKeyServerInfo]; !ok {
		return meta
	}
	meta = maps.Clone(meta)
	delete(meta, mcp.MetaKeyServerInfo)
	if len(meta) == 0 {
		return nil
	}
	return meta
}
