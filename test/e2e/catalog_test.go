package e2e_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// The whole catalog of a real stdio example server, through the
// Supervisor: prompts, resources and templates listed and counted; gets,
// reads (text, blob, template instance) and completions routed; a
// subscription whose updates arrive as events, renewed when the server is
// crashed and retried.
func TestCatalog_StdioExampleServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"s": testkit.Example(bin, "--everything")})
	sup := startSupervisor(t, actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, Backoff: slowBackoff})
	rec := actorstest.Record(t, sup)
	rec.WaitFor(ctx, 0, "templates", func(e messages.Event) bool { _, ok := e.(*messages.ResourceTemplatesChanged); return ok })

	if st := serverStatus(t, sup, "s"); st.Prompts != 2 || st.Resources != 3 || st.Templates != 1 {
		t.Fatalf("counts: %d prompts, %d resources, %d templates; want 2, 3, 1", st.Prompts, st.Resources, st.Templates)
	}
	prompt, err := sup.GetPrompt(ctx, actors.QualifiedName("s", "greet"), map[string]string{"name": "Ada", "language": "german"})
	if err != nil || !strings.Contains(prompt.Messages[0].Content.(*mcp.TextContent).Text, "Say hello to Ada in german.") {
		t.Fatalf("GetPrompt = %+v, %v", prompt, err)
	}
	blob, err := sup.ReadResource(ctx, "example://static/blob")
	if err != nil || len(blob.Contents[0].Blob) != 16 {
		t.Fatalf("read blob = %+v, %v", blob, err)
	}
	item, err := sup.ReadResource(ctx, "example://items/7")
	if err != nil || !strings.Contains(item.Contents[0].Text, `"id":"7"`) {
		t.Fatalf("read through the template = %+v, %v", item, err)
	}
	comp, err := sup.Complete(ctx, &mcp.CompleteReference{Type: "ref/prompt", Name: actors.QualifiedName("s", "greet")}, mcp.CompleteParamsArgument{Name: "language", Value: "e"}, nil)
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"english", "esperanto"}) {
		t.Fatalf("complete a prompt argument = %+v, %v", comp, err)
	}
	comp, err = sup.Complete(ctx, &mcp.CompleteReference{Type: "ref/resource", URI: "example://items/{id}"}, mcp.CompleteParamsArgument{Name: "id", Value: "ap"}, nil)
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"apple", "apricot"}) {
		t.Fatalf("complete a template variable = %+v, %v", comp, err)
	}

	const counter = "example://counter"
	touch := func() {
		t.Helper()
		mark := rec.Len()
		if res, err := sup.CallTool(ctx, "s__touch", map[string]any{}); err != nil || res.IsError {
			t.Fatalf("touch: %+v, %v", res, err)
		}
		rec.WaitFor(ctx, mark, "update", func(e messages.Event) bool {
			u, ok := e.(*messages.ResourceUpdated)
			return ok && u.Server == "s" && u.URI == counter
		})
	}
	if err := sup.SubscribeResource(ctx, counter); err != nil {
		t.Fatal(err)
	}
	touch()

	mark := rec.Len()
	_, _ = sup.CallTool(ctx, "s__crash", map[string]any{})
	rec.WaitState(ctx, mark, "s", messages.StateFailed)
	if _, _, err := sup.Resync(ctx, false); err != nil {
		t.Fatal(err)
	}
	// The new session renews the subscription (which the in-memory test
	// in actors proves by counting the server's subscribe calls); a second
	// subscription waits for that renewal's answer, and updates flow again.
	if err := sup.SubscribeResource(ctx, counter); err != nil {
		t.Fatal(err)
	}
	touch()
}
