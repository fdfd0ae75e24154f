package catcache

import (
	"encoding/json"
	"testing"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// A tool's schemas come back from the cache as the server sent them
// (bytes, keys in its order), so a client served from the cache sees the
// arguments in the same order as one served live; decoded into maps they
// would come back sorted.
func TestCatalogCache_KeepsSchemaKeyOrder(t *testing.T) {
	t.Parallel()
	const in = `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"number"}}}`
	const out = `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}`
	entry := reconciler.CachedCatalog{Server: "s", Source: "/cfg/mcp.json", Key: reconciler.CatalogKey("fp-s"),
		Tools: []messages.Tool{
			{Server: "s", Name: "ordered", InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out), Hash: "h"},
			{Server: "s", Name: "bare", InputSchema: json.RawMessage(`{"type":"object"}`), Hash: "h2"},
		}}
	dir := t.TempDir()
	runCache(t, dir, 1<<20, 1<<22, zap.NewNop(), func(c *Cache) { c.Store(specFor("s"), entry, nil) })
	loaded := runCache(t, dir, 1<<20, 1<<22, zap.NewNop(), func(*Cache) {})
	if len(loaded) != 1 || len(loaded[0].Tools) != 2 {
		t.Fatalf("loaded %+v, want the one entry with its two tools", loaded)
	}
	tool := loaded[0].Tools[0]
	for _, c := range []struct {
		field string
		got   any
		want  string
	}{{"inputSchema", tool.InputSchema, in}, {"outputSchema", tool.OutputSchema, out}} {
		raw, ok := c.got.(json.RawMessage)
		if !ok || string(raw) != c.want {
			t.Errorf("%s came back as %T %v, want the bytes %s", c.field, c.got, c.got, c.want)
		}
	}
	if loaded[0].Tools[1].OutputSchema != nil {
		t.Errorf("a tool with no output schema came back with %v", loaded[0].Tools[1].OutputSchema)
	}
}
