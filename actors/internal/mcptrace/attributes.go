package mcptrace

import (
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
)

// Attribute keys, from the OpenTelemetry semantic conventions for MCP
// (gen-ai/mcp) and the general registry; Server is mcpvisor's own.
const (
	Method          = attribute.Key("mcp.method.name")
	ProtocolVersion = attribute.Key("mcp.protocol.version")
	ToolName        = attribute.Key("gen_ai.tool.name")
	Operation       = attribute.Key("gen_ai.operation.name")
	PromptName      = attribute.Key("gen_ai.prompt.name")
	// URLScheme stands in for mcp.resource.uri, which mcpvisor never
	// records (see the package doc).
	URLScheme        = attribute.Key("url.scheme")
	ErrorType        = attribute.Key("error.type")
	StatusCode       = attribute.Key("rpc.response.status_code")
	NetworkTransport = attribute.Key("network.transport")
	NetworkProtocol  = attribute.Key("network.protocol.name")
	ServerAddress    = attribute.Key("server.address")
	ServerPort       = attribute.Key("server.port")
	// Server is the name of the configured server a request went to.
	Server = attribute.Key("mcpvisor.server.name")
)

// Error types beyond a JSON-RPC code (the conventions' error.type).
const (
	// ToolError is a tools/call whose result has isError set.
	ToolError = "tool_error"
	// Canceled is a request whose context ended first: the caller went
	// away, the call timeout fired or the session stopped.
	Canceled = "canceled"
	// ConnectionClosed is a request on a session whose connection was gone.
	ConnectionClosed = "connection_closed"
	// Other is any other failure (transport, protocol, crash), per the
	// conventions' fallback value.
	Other = "_OTHER"
)

// TargetName is what names a request's span beyond its method: the
// tool's or prompt's name ("" for anything else).
func TargetName(params mcp.Params) string {
	switch p := params.(type) {
	case *mcp.CallToolParams:
		if p != nil {
			return p.Name
		}
	case *mcp.CallToolParamsRaw:
		if p != nil {
			return p.Name
		}
	case *mcp.GetPromptParams:
		if p != nil {
			return p.Name
		}
	case *mcp.CompleteParams:
		if p != nil && p.Ref != nil && p.Ref.Type == "ref/prompt" {
			return p.Ref.Name
		}
	}
	return ""
}

// AppendTarget appends what a request was about to dst: the tool or
// prompt name, or a resource URI's scheme. Nothing else of params is
// read.
func AppendTarget(dst []attribute.KeyValue, params mcp.Params) []attribute.KeyValue {
	switch p := params.(type) {
	case *mcp.CallToolParams:
		if p != nil {
			return append(dst, ToolName.String(p.Name), Operation.String("execute_tool"))
		}
	case *mcp.CallToolParamsRaw:
		if p != nil {
			return append(dst, ToolName.String(p.Name), Operation.String("execute_tool"))
		}
	case *mcp.GetPromptParams:
		if p != nil {
			return append(dst, PromptName.String(p.Name))
		}
	case *mcp.ReadResourceParams:
		if p != nil {
			return appendScheme(dst, p.URI)
		}
	case *mcp.SubscribeParams:
		if p != nil {
			return appendScheme(dst, p.URI)
		}
	case *mcp.UnsubscribeParams:
		if p != nil {
			return appendScheme(dst, p.URI)
		}
	case *mcp.CompleteParams:
		if p != nil && p.Ref != nil {
			if p.Ref.Type == "ref/prompt" {
				return append(dst, PromptName.String(p.Ref.Name))
			}
			return appendScheme(dst, p.Ref.URI)
		}
	}
	return dst
}

// SpanName is the conventions' "{mcp.method.name} {target}".
func SpanName(method, target string) string {
	if target == "" {
		return method
	}
	return method + " " + target
}

func appendScheme(dst []attribute.KeyValue, uri string) []attribute.KeyValue {
	if s := Scheme(uri); s != "" {
		return append(dst, URLScheme.String(s))
	}
	return dst
}

// Scheme is uri's scheme (RFC 3986: a letter, then letters, digits, "+",
// "-" or "."), or "" if it has none. Nothing after the colon is read.
func Scheme(uri string) string {
	for i := 0; i < len(uri); i++ {
		c := uri[i]
		switch {
		case c == ':' && i > 0:
			return uri[:i]
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return ""
		}
	}
	return ""
}

// codeString is a JSON-RPC error code as the conventions record it.
func codeString(code int64) string { return strconv.FormatInt(code, 10) }
