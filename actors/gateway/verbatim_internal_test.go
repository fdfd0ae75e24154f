package gateway

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What a relayed result becomes for each protocol: on 2026-07-28 the
// gateway's serverInfo replaces the upstream's and a resultType is
// there; on 2025-11-25 neither is, nor any other field only 2026-07-28
// defines; the upstream's own keys stay where they were, in order.
func TestFinish_ForEachProtocol(t *testing.T) {
	t.Parallel()
	upstream := `{"structuredContent":{"z":1,"a":2},"_meta":{"z.example/trace":"t","io.modelcontextprotocol/serverInfo":{"name":"up"}},"ttlMs":5,"content":[]}`
	own := mcp.Meta{mcp.MetaKeyServerInfo: map[string]string{"name": "mcpvisor"}}
	for _, c := range []struct {
		name   string
		legacy bool
		want   string
	}{
		{"2026-07-28", false, `{"structuredContent":{"z":1,"a":2},"_meta":{"z.example/trace":"t","io.modelcontextprotocol/serverInfo":{"name":"mcpvisor"}},"ttlMs":5,"content":[],"resultType":"complete"}`},
		{"2025-11-25", true, `{"structuredContent":{"z":1,"a":2},"_meta":{"z.example/trace":"t"},"content":[]}`},
	} {
		got, err := finish([]byte(upstream), c.legacy, own)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// A tool result with no content gets an empty array (content is
// required); one with content or input requests keeps its own.
func TestVerbatimResult_FillsInMissingContent(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`{"isError":false}`:                        `{"isError":false,"content":[]}`,
		`{"content":[{"type":"text","text":"x"}]}`: `{"content":[{"type":"text","text":"x"}]}`,
	} {
		r := &verbatimResult{Result: &mcp.CallToolResult{}, raw: json.RawMessage(raw), legacy: true, content: true}
		got, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s became %s, want %s", raw, got, want)
		}
	}
}
