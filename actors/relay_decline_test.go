package actors_test

import (
	"bufio"
	"encoding/json"
	"net"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// legacyAsker is a server on protocol 2025-11-25 that does not care what
// its client advertised: its tool "ask" sends elicitation/create and
// answers with the action it got back. It is scripted on the wire, as no
// go-sdk server would send a request its client cannot take.
func legacyAsker(t *testing.T) mcp.Transport {
	client, server := net.Pipe()
	go func() {
		defer server.Close()
		in := bufio.NewScanner(server)
		in.Buffer(make([]byte, 1<<20), 1<<20)
		send := func(v map[string]any) {
			v["jsonrpc"] = "2.0"
			b, _ := json.Marshal(v)
			if _, err := server.Write(append(b, '\n')); err != nil {
				return
			}
		}
		var callID any
		for in.Scan() {
			var m struct {
				ID     any             `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(in.Bytes(), &m) != nil {
				return
			}
			switch {
			case m.Method == "initialize":
				send(map[string]any{"id": m.ID, "result": map[string]any{
					"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
					"serverInfo": map[string]any{"name": "asker", "version": "1"},
				}})
			case m.Method == "tools/list":
				send(map[string]any{"id": m.ID, "result": map[string]any{"tools": []any{
					map[string]any{"name": "ask", "inputSchema": map[string]any{"type": "object"}},
				}}})
			case m.Method == "tools/call":
				callID = m.ID
				send(map[string]any{"id": "e1", "method": "elicitation/create", "params": map[string]any{
					"message": "continue?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}},
				}})
			case m.Method == "" && m.ID == "e1":
				var r struct {
					Action string `json:"action"`
				}
				_ = json.Unmarshal(m.Result, &r)
				send(map[string]any{"id": callID, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "action " + r.Action}}}})
			case m.ID != nil && m.Method != "":
				send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
			}
		}
	}()
	t.Cleanup(func() { _ = client.Close() })
	return &mcp.IOTransport{Reader: client, Writer: client}
}

// With no Elicitation handler mcpvisor advertises no elicitation, and a
// server that asks anyway is declined at once, never left waiting.
func TestRelay_ElicitationDeclinedWithoutAHandler(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dial := func(messages.ServerSpec) (mcp.Transport, error) { return legacyAsker(t), nil }
	sup, rec := startWithDial(t, quartz.NewMock(t), dial, actors.Options{ConfigPaths: []string{configFor(t, "asker")}})
	rec.WaitState(ctx, 0, "asker", messages.StateReady)
	res, err := sup.CallTool(ctx, "asker__ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "action decline" {
		t.Errorf("the server got %q, want action decline", got)
	}
}
