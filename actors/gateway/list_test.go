package gateway_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
)

// Lists longer than a page are served page by page from the gateway's
// index: every item exactly once across the pages, a URI two servers list
// once (the winner's), and a page after a change neither repeats nor
// skips what did not change. A cursor the gateway did not make is invalid
// params. The item that announces list changes is never listed, called or
// read.
func TestGateway_BigListsPaged(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	src := newFakeSource()
	src.declare("/cfg/mcp.json", "alpha", "beta")
	var want []string
	for i := range 1500 {
		src.resources = append(src.resources, resource("alpha", fmt.Sprintf("test://alpha/%04d", i), "An item."))
		want = append(want, fmt.Sprintf("test://alpha/%04d", i))
	}
	for i := range 1200 {
		src.resources = append(src.resources, resource("beta", fmt.Sprintf("test://beta/%04d", i), "An item."))
		want = append(want, fmt.Sprintf("test://beta/%04d", i))
	}
	// Claimed by both: exposed once, alpha's (first in config order).
	src.resources = append(src.resources, resource("beta", "test://alpha/0007", "Beta's copy."))
	for i := range 1100 {
		src.tools = append(src.tools, tool("alpha", fmt.Sprintf("t%04d", i), "A tool."))
	}
	h := startGateway(t, src)
	c := h.connectInMemory(ctx, "")
	waitResourceCount(t, c, 2700) // Run has loaded the catalog

	var got []string
	pages := 0
	cursor := ""
	for {
		res, err := c.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(res.Resources) > gateway.PageSize {
			t.Fatalf("page %d holds %d resources, more than %d", pages, len(res.Resources), gateway.PageSize)
		}
		for _, r := range res.Resources {
			got = append(got, r.URI)
			if r.URI == "test://alpha/0007" && r.Description != "An item." {
				t.Errorf("test://alpha/0007 is %q, want alpha's", r.Description)
			}
		}
		if pages == 1 {
			// Between two pages beta withdraws its second half: the
			// next pages go on after the first page's last item.
			h.resourcesChanged("beta", src.resources[1500:2100]...)
			waitResourceCount(t, c, 2100)
			want = want[:2100]
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if pages < 3 {
		t.Errorf("%d pages, want at least 3", pages)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resources across the pages (-want +got):\n%s", diff)
	}

	var tools int
	for tl, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tl.Name == "mcpvisor-list-changed" {
			t.Error("the list-changed sentinel is listed")
		}
		tools++
	}
	if tools != 1100 {
		t.Errorf("%d tools across the pages, want 1100", tools)
	}

	var wire *jsonrpc.Error
	if _, err := c.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "not a cursor!"}); !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("list with a made-up cursor: %v, want invalid params", err)
	}
	if _, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcpvisor-list-changed"}); !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("call of the sentinel: %v, want unknown tool", err)
	}
	if _, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "mcpvisor-list-changed"}); err == nil {
		t.Error("get of the sentinel prompt succeeded")
	}
	if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcpvisor:list-changed"}); err == nil {
		t.Error("read of the sentinel resource succeeded")
	}
}

// waitResourceCount waits, notification by notification, until the
// gateway lists n resources.
func waitResourceCount(t *testing.T, c *client, n int) {
	t.Helper()
	ctx := actorstest.Context(t)
	for {
		count := 0
		for _, err := range c.cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			count++
		}
		if count == n {
			return
		}
		select {
		case <-c.resourcesChanged:
		case <-ctx.Done():
			t.Fatalf("the gateway lists %d resources, never %d", count, n)
		}
	}
}
