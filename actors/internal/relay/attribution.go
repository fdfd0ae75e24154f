//lint:file-ignore SA1019 sampling is deprecated from protocol 2026-07-28 on (SEP-2577) but is what this file attributes.

package relay

import (
	"maps"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Attribution: whoever answers a server's request learns which server
// made it. Every relayed sampling and elicitation request carries the
// server's name in _meta (MetaKeyServer), and an elicitation, which a
// person reads, also says it in its message ("[server "NAME"] ..."), so a
// server cannot pass its dialog off as mcpvisor's or another server's:
// the prefix comes first, whatever the server wrote after it. The name is
// quoted (Go syntax: quotes, backslashes and every non-printable escaped)
// and cut to MaxShownServerName bytes, because a config may name a server
// with any text up to 1 KiB: a name holding `] ` and a newline would
// otherwise end the prefix early and start a dialog of its own. _meta
// keeps the name as configured. A sampling
// request keeps its prompts as the server wrote them: they go to a
// model, whose answer goes back to the server, and a line added to them
// would change what the model is asked; a client that shows the request
// for approval finds the server in _meta.

// MetaKeyServer is the _meta key of a relayed request that names the
// server that sent it.
const MetaKeyServer = "io.mcpvisor/server"

// withServer is meta, copied, naming server.
func withServer(meta mcp.Meta, server string) mcp.Meta {
	out := make(mcp.Meta, len(meta)+1)
	maps.Copy(out, meta)
	out[MetaKeyServer] = server
	return out
}

// attributedElicit is a copy of p that names server, in its _meta and at
// the start of its message (both form and URL mode show the message).
func attributedElicit(p *mcp.ElicitParams, server string) *mcp.ElicitParams {
	cp := *p
	cp.Meta = withServer(p.Meta, server)
	cp.Message = "[server " + quotedServer(server) + "] " + p.Message
	return &cp
}

// MaxShownServerName bounds the bytes of a server's name that an
// elicitation's prefix shows.
const MaxShownServerName = 64

// quotedServer is server as a Go string literal, cut to
// MaxShownServerName bytes (at a rune boundary) with "..." marking the cut.
func quotedServer(server string) string {
	if len(server) <= MaxShownServerName {
		return strconv.Quote(server)
	}
	cut := server[:MaxShownServerName]
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	q := strconv.Quote(cut)
	return q[:len(q)-1] + `..."`
}

// attributedSampling is a copy of p that names server in its _meta.
func attributedSampling(p *mcp.CreateMessageParams, server string) *mcp.CreateMessageParams {
	cp := *p
	cp.Meta = withServer(p.Meta, server)
	return &cp
}

// attributedSamplingWithTools is a copy of p that names server in its _meta.
func attributedSamplingWithTools(p *mcp.CreateMessageWithToolsParams, server string) *mcp.CreateMessageWithToolsParams {
	cp := *p
	cp.Meta = withServer(p.Meta, server)
	return &cp
}

// attributeInput names server in each sampling and elicitation request
// of asks, in place (the result is the relay's own, decoded from the
// server's answer); roots requests are answered with config or the
// caller's roots and shown to nobody.
func attributeInput(asks mcp.InputRequestMap, server string) {
	for id, ask := range asks {
		switch p := ask.(type) {
		case *mcp.ElicitParams:
			asks[id] = attributedElicit(p, server)
		case *mcp.CreateMessageParams:
			asks[id] = attributedSampling(p, server)
		case *mcp.CreateMessageWithToolsParams:
			asks[id] = attributedSamplingWithTools(p, server)
		}
	}
}
