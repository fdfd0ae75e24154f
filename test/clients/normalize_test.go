package clients_test

import (
	"testing"
)

// The expected differences hide what they list and nothing else: a step
// through the gateway that differs from direct only as listed compares
// equal, and one that reorders a schema, drops an explicit false, adds a
// field, or names another server still shows.
func TestExpectedDifferences_HideOnlyWhatTheyList(t *testing.T) {
	t.Parallel()
	const direct = `{"responses": [{"result": {"tools": [
		{"name": "b", "inputSchema": {"type": "object", "properties": {"z": {}, "a": {}}}},
		{"name": "a", "title": "A", "annotations": {"readOnlyHint": false}}
	]}}], "serverRequests": [{"method": "elicitation/create", "params": {"message": "hi", "requestedSchema": {"properties": {"z": {}, "a": {}}}}}]}`
	cases := []struct {
		name, gateway string
		equal         bool
	}{
		{"listed differences only", `{"serverRequests": [{"method": "elicitation/create", "params": {"mode": "form", "_meta": {"io.mcpvisor/server": "everything"}, "message": "[server \"everything\"] hi", "requestedSchema": {"properties": {"z": {}, "a": {}}}}}], "responses": [{"result": {"tools": [
			{"title": "A", "annotations": {"readOnlyHint": false}, "name": "a"},
			{"inputSchema": {"type": "object", "properties": {"z": {}, "a": {}}}, "name": "b"}
		]}}]}`, true},
		{"schema properties reordered", `{"responses": [{"result": {"tools": [
			{"name": "b", "inputSchema": {"type": "object", "properties": {"a": {}, "z": {}}}},
			{"name": "a", "title": "A", "annotations": {"readOnlyHint": false}}
		]}}], "serverRequests": [{"method": "elicitation/create", "params": {"message": "hi", "requestedSchema": {"properties": {"z": {}, "a": {}}}}}]}`, false},
		{"explicit false dropped", `{"responses": [{"result": {"tools": [
			{"name": "b", "inputSchema": {"type": "object", "properties": {"z": {}, "a": {}}}},
			{"name": "a", "title": "A", "annotations": {}}
		]}}], "serverRequests": [{"method": "elicitation/create", "params": {"message": "hi", "requestedSchema": {"properties": {"z": {}, "a": {}}}}}]}`, false},
		{"field added", `{"responses": [{"result": {"ttlMs": 0, "tools": [
			{"name": "b", "inputSchema": {"type": "object", "properties": {"z": {}, "a": {}}}},
			{"name": "a", "title": "A", "annotations": {"readOnlyHint": false}}
		]}}], "serverRequests": [{"method": "elicitation/create", "params": {"message": "hi", "requestedSchema": {"properties": {"z": {}, "a": {}}}}}]}`, false},
		{"another server named", `{"responses": [{"result": {"tools": [
			{"name": "b", "inputSchema": {"type": "object", "properties": {"z": {}, "a": {}}}},
			{"name": "a", "title": "A", "annotations": {"readOnlyHint": false}}
		]}}], "serverRequests": [{"method": "elicitation/create", "params": {"message": "[server \"other\"] hi", "requestedSchema": {"properties": {"z": {}, "a": {}}}}}]}`, false},
	}
	want := normalizeStep("tools/list", mustOrdered(t, direct), false)
	for _, c := range cases {
		got := normalizeStep("tools/list", mustOrdered(t, c.gateway), true)
		if equal := indent(want) == indent(got); equal != c.equal {
			t.Errorf("%s: equal = %v, want %v\ndirect:\n%s\ngateway:\n%s", c.name, equal, c.equal, indent(want), indent(got))
		}
	}
}

func mustOrdered(t *testing.T, text string) object {
	t.Helper()
	v, err := decodeOrdered([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return v.(object)
}

// The not-found difference hides only how the message is worded and the
// data: a gateway message without the URI, or another code, still shows.
func TestExpectedDifferences_NotFoundMustStillNameTheURI(t *testing.T) {
	t.Parallel()
	const step = "read an unknown resource"
	const direct = `{"responses": [{"error": {"code": -32602, "message": "MCP error -32602: Resource demo://resource/static/document/no-such-file.md not found"}}]}`
	cases := []struct {
		name, gateway string
		equal         bool
	}{
		{"the URI in message and data", `{"responses": [{"error": {"code": -32602, "data": {"uri": "demo://resource/static/document/no-such-file.md"}, "message": "Resource demo://resource/static/document/no-such-file.md not found"}}]}`, true},
		{"the URI in data only", `{"responses": [{"error": {"code": -32602, "data": {"uri": "demo://resource/static/document/no-such-file.md"}, "message": "Resource not found"}}]}`, false},
		{"another code", `{"responses": [{"error": {"code": -32603, "message": "Resource demo://resource/static/document/no-such-file.md not found"}}]}`, false},
	}
	want := normalizeStep(step, mustOrdered(t, direct), false)
	for _, c := range cases {
		got := normalizeStep(step, mustOrdered(t, c.gateway), true)
		if equal := indent(want) == indent(got); equal != c.equal {
			t.Errorf("%s: equal = %v, want %v\ndirect:\n%s\ngateway:\n%s", c.name, equal, c.equal, indent(want), indent(got))
		}
	}
}
