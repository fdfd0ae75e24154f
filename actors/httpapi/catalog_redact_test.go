package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// D1: a server that puts a secret it was given into its catalog (a tool
// description, a schema, a prompt, a resource's title) no longer shows
// it. (Names and URIs are kept: they are how an item is called or read.)
// The server gets one value from its config (env) and can read one of
// mcpvisor's environment (inherited); both are in its tool's
// description and schema, its prompt and its resource. The catalog
// endpoints, the event stream and the catalog cache show neither, each
// item marked where the secret was.
func TestSupervisor_CatalogTextIsRedacted(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	const configured, inherited = "PLANTED-CONFIGURED-SECRET-1c9d", "PLANTED-INHERITED-SECRET-8e2a"
	leak := "uses " + configured + " and " + inherited
	srv := mcp.NewServer(&mcp.Implementation{Name: "leaky", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "whoami", Description: leak, InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string", "default": configured}},
	}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Description: leak}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	srv.AddResource(&mcp.Resource{URI: "mem://x/r", Name: "r", Title: inherited, Description: leak}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})

	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"a": map[string]any{"command": "in-memory", "env": map[string]string{"API_TOKEN": configured}}}})
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	sup, err := actors.Start(actors.Options{
		ConfigPaths: []string{cfg}, Logger: zaptest.NewLogger(t), DisableWatch: true, StopGrace: time.Second, CacheDir: cache,
		Environ: func() []string { return []string{"INHERITED_TOKEN=" + inherited} },
		Dial: func(messages.ServerSpec) (mcp.Transport, error) {
			st, ct := mcp.NewInMemoryTransports()
			if _, err := srv.Connect(context.Background(), st, nil); err != nil {
				return nil, err
			}
			return ct, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sup.Close() })
	ts, _ := api(t, httpapi.Options{Fleet: sup})

	holds := func(where string, text []byte) {
		t.Helper()
		for _, s := range []string{configured, inherited} {
			if strings.Contains(string(text), s) {
				t.Errorf("%s shows %q:\n%s", where, s, text)
			}
		}
	}
	// The events up to the server's ready state and its catalog.
	_, r := openEvents(ctx, t, ts.URL+"/api/v1/events?since=0")
	for seen := map[string]bool{}; len(seen) < 4; {
		ev := r.nextEvent()
		holds("event "+ev.event, []byte(ev.data))
		var data httpapi.StreamEvent
		if err := json.Unmarshal([]byte(ev.data), &data); err != nil {
			t.Fatal(err)
		}
		env, err := httpapi.DecodeEvent(data)
		if err != nil {
			t.Fatal(err)
		}
		switch e := env.Event.(type) {
		case *messages.ToolsChanged:
			seen["tools"] = true
		case *messages.PromptsChanged:
			seen["prompts"] = true
		case *messages.ResourcesChanged:
			seen["resources"] = true
		case *messages.ServerStateChanged:
			seen["ready"] = seen["ready"] || e.To == messages.StateReady
		}
	}
	for _, path := range []string{"/api/v1/tools", "/api/v1/prompts", "/api/v1/resources"} {
		res := request(t, ts, http.MethodGet, path, "")
		holds(path, res.body)
		if !strings.Contains(string(res.body), redact.Mark) {
			t.Errorf("%s: no %s where the secrets were:\n%s", path, redact.Mark, res.body)
		}
	}
	if err := sup.Close(); err != nil { // writes the cache
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "catalogs", "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want a's", files)
	}
	entry, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	holds("the cache", entry)
}
