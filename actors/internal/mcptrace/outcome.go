package mcptrace

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// End records a request's outcome on span and ends it: nothing more for
// a success; error.type "tool_error" for a tool result with isError; the
// JSON-RPC code (error.type and rpc.response.status_code) for an error
// answer; else the error's class. The status description is the class
// too, never the error's text, which may quote what the server saw.
//
// codeIsError says whether a JSON-RPC code counts as a failure of this
// side (the conventions differ for client and server spans).
func End(span trace.Span, res mcp.Result, err error, codeIsError func(int64) bool) {
	var class string
	var wire *jsonrpc.Error
	switch {
	case err == nil:
		if w, ok := res.(interface{ Unwrap() mcp.Result }); ok {
			res = w.Unwrap() // a result sent as JSON of its own (the gateway's verbatim ones)
		}
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			class = ToolError
		}
	case errors.As(err, &wire):
		code := codeString(wire.Code)
		span.SetAttributes(StatusCode.String(code))
		if !codeIsError(wire.Code) {
			span.End()
			return
		}
		class = code
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		class = Canceled
	case errors.Is(err, mcp.ErrConnectionClosed):
		class = ConnectionClosed
	default:
		class = Other
	}
	if class != "" {
		span.SetAttributes(ErrorType.String(class))
		span.SetStatus(codes.Error, class)
	}
	span.End()
}

// ClientCodeIsError: on the client side every JSON-RPC error code is one.
func ClientCodeIsError(int64) bool { return true }

// ServerCodeIsError: on the server side only internal and server errors
// are; the rest say that the caller sent what could not be served.
func ServerCodeIsError(code int64) bool {
	return code == jsonrpc.CodeInternalError || (code <= -32000 && code >= -32099)
}
