//lint:file-ignore SA1019 the tests exercise sampling, roots and logging, deprecated from protocol 2026-07-28 on (SEP-2577).

package exampleserver_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
)

func TestPrompts_ListAndGetWithArguments(t *testing.T) {
	t.Parallel()
	for _, pv := range protocols {
		t.Run(pv, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			cs := serve(t, ctx, exampleserver.Options{Name: "p", Prompts: true}, nil, pv)
			if cs.InitializeResult().Capabilities.Prompts == nil {
				t.Fatal("prompts capability not advertised")
			}
			list, err := cs.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatalf("prompts/list: %v", err)
			}
			got := map[string][]string{}
			for _, p := range list.Prompts {
				var args []string
				for _, a := range p.Arguments {
					args = append(args, a.Name+map[bool]string{true: "!", false: ""}[a.Required])
				}
				got[p.Name] = args
			}
			want := map[string][]string{"greet": {"name!", "language"}, "status": nil}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("prompts (-want +got):\n%s", diff)
			}

			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada", "language": "french"}})
			if err != nil {
				t.Fatalf("prompts/get greet: %v", err)
			}
			if len(res.Messages) != 1 || res.Messages[0].Content.(*mcp.TextContent).Text != "Say hello to Ada in french." {
				t.Fatalf("greet messages: %+v", res.Messages)
			}
			res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "status"})
			if err != nil || len(res.Messages) != 2 {
				t.Fatalf("prompts/get status: %+v, %v", res, err)
			}

			_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("greet without its required argument: %v, want JSON-RPC invalid params", err)
			}
		})
	}
}

// Without --prompts, --resources and --completion the server advertises
// none of them: existing configs see the same server as before.
func TestFeatures_OffByDefault(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cs := serve(t, ctx, exampleserver.Options{Name: "plain"}, nil, legacy)
	caps := cs.InitializeResult().Capabilities
	if caps.Prompts != nil || caps.Resources != nil || caps.Completions != nil || caps.Logging != nil {
		t.Fatalf("capabilities of a plain example server: %+v", caps)
	}
	names := toolNames(t, ctx, cs)
	if len(names) != 7 {
		t.Fatalf("plain example server lists %d tools, want the 7 basic ones: %v", len(names), names)
	}
}
