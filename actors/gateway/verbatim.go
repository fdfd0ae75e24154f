package gateway

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
)

// A relayed result goes to the client as the upstream server sent it
// (package verbatim captured its bytes): key order of structured content
// and of every other free-form object, and fields the go-sdk's typed
// decoding would drop (an explicit false, a field the go-sdk does not
// know), all kept. The gateway changes only what is its own to say: the
// upstream's serverInfo in _meta is dropped (the gateway's session puts
// its own there on 2026-07-28), and a client on a protocol older than
// 2026-07-28 gets none of the fields that protocol does not define
// (newOnly). A result that was not captured goes typed, as before.

// protocol20260728 is the protocol whose fields older sessions never see.
const protocol20260728 = "2026-07-28"

// newOnly are the result fields protocol 2026-07-28 added: a session on
// an older protocol is sent none of them.
var newOnly = map[string]bool{
	"resultType":    true, // multi round-trip results
	"inputRequests": true,
	"requestState":  true,
	"ttlMs":         true, // cacheable lists and reads
	"cacheScope":    true,
}

// legacy reports whether a client's session speaks a protocol older than
// 2026-07-28 (as the go-sdk's server decides it, from the session's
// initialize or, on 2026-07-28, the request's own _meta).
func legacy(ss *mcp.ServerSession) bool {
	if ss == nil {
		return true
	}
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion < protocol20260728
}

// relayedMethods are the requests whose upstream result goes to the
// client verbatim.
var relayedMethods = map[string]bool{
	"tools/call": true, "prompts/get": true, "resources/read": true, "completion/complete": true,
}

// verbatimRelay runs a relayed request (handle) under a capture of its
// upstream result, and returns that result verbatim if it was captured.
func verbatimRelay(ctx context.Context, method string, req mcp.Request, handle func(context.Context) (mcp.Result, error)) (mcp.Result, error) {
	ctx, slot := verbatim.Capture(ctx)
	res, err := handle(ctx)
	if err != nil || res == nil {
		return res, err
	}
	raw := slot.Result(method)
	if raw == nil {
		if legacy(sessionOf(req)) {
			return &verbatimResult{Result: res, legacy: true}, nil
		}
		return res, nil
	}
	out := &verbatimResult{Result: res, raw: raw, legacy: legacy(sessionOf(req)), content: method == "tools/call"}
	if ir := inputRequests(res); len(ir) > 0 {
		// The relay attributes each input request to its server (it
		// names it in the message and in _meta): the typed ones are what
		// the client gets.
		b, err := json.Marshal(ir)
		if err != nil {
			return nil, err
		}
		out.set = []verbatim.Member{{Key: "inputRequests", Value: b}}
	}
	return out, nil
}

// inputRequests are a relayed result's input requests (2026-07-28).
func inputRequests(res mcp.Result) mcp.InputRequestMap {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		return r.InputRequests
	case *mcp.GetPromptResult:
		return r.InputRequests
	case *mcp.ReadResourceResult:
		return r.InputRequests
	}
	return nil
}

// sessionOf is the client's session a request came on.
func sessionOf(req mcp.Request) *mcp.ServerSession {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	return ss
}

// verbatimResult is a result the gateway sends as JSON of its own making:
// raw (the upstream's bytes) if set, else the typed result's encoding,
// either way finished for the client's protocol (finish). The typed
// result stays inside, for the go-sdk (which puts the gateway's
// serverInfo in its _meta on 2026-07-28) and for the middleware that
// looks at it (Unwrap).
type verbatimResult struct {
	mcp.Result
	raw    json.RawMessage
	legacy bool
	// set replaces members of the typed result's encoding (a list whose
	// items need what their typed form cannot say).
	set []verbatim.Member
	// content: a tool result, whose content is required (an upstream
	// that sent none, nor input requests, gets an empty array).
	content bool
}

// Unwrap is the typed result.
func (r *verbatimResult) Unwrap() mcp.Result { return r.Result }

func (r *verbatimResult) MarshalJSON() ([]byte, error) {
	obj := []byte(r.raw)
	own := r.Result.GetMeta()
	if obj == nil {
		typed, err := json.Marshal(r.Result)
		if err != nil {
			return nil, err
		}
		obj = typed // its _meta is the gateway's own
	}
	set := r.set
	if r.content && r.raw != nil {
		set = append(set[:len(set):len(set)], verbatim.Member{Key: "content", Value: json.RawMessage(`[]`)})
	}
	return finish(obj, r.legacy, own, set...)
}

// finish is obj (a result) as a client on a legacy or 2026-07-28 session
// gets it: on legacy without newOnly's fields and without any serverInfo;
// on 2026-07-28 with a resultType ("complete" unless the upstream said
// otherwise) and with own's serverInfo (the gateway's, which the go-sdk
// set) in place of the upstream's. A raw result's content, if it has
// none (nor input requests), is an empty array: it is required.
func finish(obj []byte, legacy bool, own mcp.Meta, set ...verbatim.Member) ([]byte, error) {
	ms, err := verbatim.Members(obj)
	if err != nil {
		return nil, err
	}
	var meta json.RawMessage
	typed := false
	for _, m := range ms {
		switch m.Key {
		case "_meta":
			meta = m.Value
		case "resultType":
			typed = true
		}
	}
	set = keepGiven(set, ms)
	meta, err = clientMeta(meta, legacy, own)
	if err != nil {
		return nil, err
	}
	set = append(set, verbatim.Member{Key: "_meta", Value: meta})
	if !legacy && !typed {
		set = append(set, verbatim.Member{Key: "resultType", Value: json.RawMessage(`"complete"`)})
	}
	drop := func(key string) bool { return legacy && newOnly[key] }
	return verbatim.Join(ms, drop, set...), nil
}

// clientMeta is an upstream's _meta (nil if none) without its
// serverInfo, with own's on 2026-07-28; nil if nothing is left.
func clientMeta(meta json.RawMessage, legacy bool, own mcp.Meta) (json.RawMessage, error) {
	var info json.RawMessage
	if v, ok := own[mcp.MetaKeyServerInfo]; ok && !legacy {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		info = b
	}
	if meta == nil || string(meta) == "null" {
		if info == nil {
			return nil, nil
		}
		meta = json.RawMessage(`{}`)
	}
	out, err := verbatim.Edit(meta, func(key string) bool { return key == mcp.MetaKeyServerInfo },
		verbatim.Member{Key: mcp.MetaKeyServerInfo, Value: info})
	if err != nil {
		return meta, nil // not an object: the client's to judge, as sent
	}
	if string(out) == "{}" {
		return nil, nil
	}
	return out, nil
}

// keepGiven is set without its "content" member when the result has
// content or input requests of its own: that member only fills in what
// is missing.
func keepGiven(set []verbatim.Member, ms []verbatim.Member) []verbatim.Member {
	given := false
	for _, m := range ms {
		if (m.Key == "content" && string(m.Value) != "null") || m.Key == "inputRequests" {
			given = true
		}
	}
	if !given {
		return set
	}
	out := set[:0:0]
	for _, m := range set {
		if m.Key != "content" {
			out = append(out, m)
		}
	}
	return out
}

// forSession is a list result as the client's session gets it: on a
// legacy session without the cache fields 2026-07-28 added (the go-sdk
// always writes them), else as it is.
func forSession(res mcp.Result, legacy bool) mcp.Result {
	if !legacy {
		return res
	}
	return &verbatimResult{Result: res, legacy: true}
}
