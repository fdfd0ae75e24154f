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

func TestCompletion_PromptArgumentAndTemplateVariable(t *testing.T) {
	t.Parallel()
	for _, pv := range protocols {
		t.Run(pv, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			cs := serve(t, ctx, exampleserver.Options{Name: "c", Prompts: true, Resources: true, Completion: true}, nil, pv)
			if cs.InitializeResult().Capabilities.Completions == nil {
				t.Fatal("completions capability not advertised")
			}
			for _, tc := range []struct {
				ref        mcp.CompleteReference
				arg, value string
				want       []string
			}{
				{mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, "language", "e", []string{"english", "esperanto"}},
				{mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, "language", "", []string{"english", "esperanto", "french", "german", "spanish"}},
				{mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, "language", "x", []string{}},
				{mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, "name", "A", []string{}},
				{mcp.CompleteReference{Type: "ref/resource", URI: "example://items/{id}"}, "id", "ap", []string{"apple", "apricot"}},
			} {
				ref := tc.ref
				res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &ref, Argument: mcp.CompleteParamsArgument{Name: tc.arg, Value: tc.value}})
				if err != nil {
					t.Fatalf("complete %+v %s=%q: %v", tc.ref, tc.arg, tc.value, err)
				}
				if diff := cmp.Diff(tc.want, res.Completion.Values); diff != "" {
					t.Errorf("complete %+v %s=%q (-want +got):\n%s", tc.ref, tc.arg, tc.value, diff)
				}
				if res.Completion.Total != len(tc.want) || res.Completion.HasMore {
					t.Errorf("complete %+v %s=%q: total %d hasMore %v", tc.ref, tc.arg, tc.value, res.Completion.Total, res.Completion.HasMore)
				}
			}

			_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "nope"}, Argument: mcp.CompleteParamsArgument{Name: "x"}})
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("completion for an unknown prompt: %v, want JSON-RPC invalid params", err)
			}
		})
	}
}

// A completion reference is only known when its feature is served.
func TestCompletion_OnlyForServedFeatures(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cs := serve(t, ctx, exampleserver.Options{Name: "c", Completion: true}, nil, legacy)
	_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, Argument: mcp.CompleteParamsArgument{Name: "language"}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("completion for greet without --prompts: %v, want JSON-RPC invalid params", err)
	}
}
