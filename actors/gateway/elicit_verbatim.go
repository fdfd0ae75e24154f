package gateway

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
)

// A client's answer to a relayed elicitation reaches the server as the
// client sent it. The go-sdk server session that asks the client
// (ServerSession.Elicit) checks the answer against the requested schema
// and then fills in the schema's defaults, so the server would read
// values the client never gave (and, decoded into a map, in sorted key
// order). The upstream relay asks under a verbatim.Capture; the answer's
// bytes reach its Slot before Elicit touches them:
//
//   - on stdio, the connection records the response to the call it
//     wrote under the capture (verbatim.Transport);
//   - on streamable HTTP, whose server connection the go-sdk builds
//     itself, the POSTed responses are kept while an elicitation waits
//     (keepAnswer), and this middleware, which sees the answer decoded
//     but not yet defaulted, takes the one that decodes alike;
//   - failing both, it records that decoded answer, marshaled: the
//     client's keys and values, no defaults, in sorted key order.
//
// The upstream relay then returns the Slot's bytes, also when Elicit
// refused the answer for not matching the schema: the server would have
// got it directly, and it is the server's to judge.

// elicitAnswers is the sending middleware that records a client's
// answer to an elicitation in the Slot of its capture (see above).
func (g *Gateway) elicitAnswers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		slot := verbatim.SlotOf(ctx)
		if method != "elicitation/create" || slot == nil {
			return next(ctx, method, req)
		}
		g.eliciting.Add(1)
		res, err := next(ctx, method, req)
		g.eliciting.Add(-1)
		answer, ok := res.(*mcp.ElicitResult)
		if err != nil || !ok || answer == nil || slot.Result(method) != nil {
			return res, err
		}
		raw := verbatim.Take(&g.answers, method, answer)
		if raw == nil {
			if raw, err = json.Marshal(answer); err != nil {
				return res, nil // the typed answer goes on
			}
		}
		slot.Record(method, raw)
		return res, nil
	}
}

// keepAnswer keeps the result of a JSON-RPC response a client POSTed,
// while an elicitation waits for its answer (elicitAnswers).
func (g *Gateway) keepAnswer(body []byte) {
	if g.eliciting.Load() == 0 || !bytes.Contains(body, []byte(`"action"`)) {
		return // no elicitation waits, or no answer to one (a cheap look first)
	}
	var m struct {
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != "" || m.Result == nil {
		return
	}
	g.answers.Add("elicitation/create", m.Result)
}
