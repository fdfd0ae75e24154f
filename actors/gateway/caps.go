//lint:file-ignore SA1019 roots are deprecated from protocol 2026-07-28 on (SEP-2577), but clients still send them, and this reads them as the go-sdk does.

package gateway

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientCapabilities returns what req.ClientCapabilities() returns: the
// capabilities of the client that sent req. On protocol 2026-07-28 they
// travel in each request's _meta, as the map decoding left them, and the
// go-sdk turns that map into its type by encoding it again and decoding
// the bytes through a decoder that allocates a fresh 32 KiB buffer, once
// per request: an eighth of all a gateway request allocated, and so of
// the collections that make its tail latency. This decodes the same bytes
// with encoding/json into the go-sdk's own type, with the go-sdk's rule
// for roots (the wire's roots are RootsV2, mirrored into Roots). Anything
// else (no capabilities in _meta, so the session's; a typed value put
// there in-process) is the go-sdk's to answer.
func clientCapabilities[P mcp.Params](req *mcp.ServerRequest[P]) *mcp.ClientCapabilities {
	raw, ok := req.Params.GetMeta()[mcp.MetaKeyClientCapabilities].(map[string]any)
	if !ok {
		return req.ClientCapabilities()
	}
	data, err := json.Marshal(raw)
	var wire struct {
		mcp.ClientCapabilities
		Roots *mcp.RootCapabilities `json:"roots,omitempty"` // shadows the embedded Roots
	}
	if err != nil || json.Unmarshal(data, &wire) != nil {
		return req.ClientCapabilities()
	}
	caps := wire.ClientCapabilities
	caps.RootsV2 = wire.Roots
	if wire.Roots != nil {
		caps.Roots.ListChanged = wire.Roots.ListChanged
	}
	return &caps
}
