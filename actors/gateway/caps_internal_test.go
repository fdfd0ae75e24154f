package gateway

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// requestWithCaps is a tools/call as the go-sdk hands it to a handler
// after wire transit: its _meta's capabilities are what decoding the JSON
// text capsJSON left (no capabilities at all when capsJSON is empty).
func requestWithCaps(t testing.TB, capsJSON string) *mcp.ServerRequest[*mcp.CallToolParamsRaw] {
	t.Helper()
	meta := mcp.Meta{}
	if capsJSON != "" {
		var v any
		if err := json.Unmarshal([]byte(capsJSON), &v); err != nil {
			t.Fatal(err)
		}
		meta[mcp.MetaKeyClientCapabilities] = v
	}
	return &mcp.ServerRequest[*mcp.CallToolParamsRaw]{Params: &mcp.CallToolParamsRaw{Meta: meta, Name: "t"}}
}

// The gateway reads a request's client capabilities as the go-sdk does.
func TestClientCapabilities_AsTheGoSDKReadsThem(t *testing.T) {
	for _, capsJSON := range []string{
		``,
		`{}`,
		`{"sampling":{},"elicitation":{"form":{},"url":{}}}`,
		`{"roots":{"listChanged":true}}`,
		`{"roots":{}}`,
		`{"experimental":{"x":{"a":1}},"extensions":{"io.example/y":{}},"sampling":{"tools":{}}}`,
		`"not an object"`,
	} {
		req := requestWithCaps(t, capsJSON)
		if diff := cmp.Diff(req.ClientCapabilities(), clientCapabilities(req)); diff != "" {
			t.Errorf("capabilities %s (-go-sdk +gateway):\n%s", capsJSON, diff)
		}
	}
}

// Reading them allocates what they hold, not the 32 KiB decoder buffer
// the go-sdk's own reading allocates for every request.
func TestClientCapabilities_ReadingAllocatesLittle(t *testing.T) {
	req := requestWithCaps(t, `{"sampling":{},"elicitation":{"form":{}},"roots":{"listChanged":true}}`)
	const n = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		_ = clientCapabilities(req)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 16<<10 {
		t.Fatalf("%d bytes allocated per request, want well under the go-sdk's 32 KiB", per)
	}
}
