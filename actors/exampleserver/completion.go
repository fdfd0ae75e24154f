package exampleserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// complete answers completion/complete for greet's language argument and
// example://items/{id}'s id variable: the values that start with what the
// client typed, in order. Other arguments of a known reference complete
// to nothing; a reference this server does not serve is an error.
func (e *example) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref, arg := req.Params.Ref, req.Params.Argument
	var candidates []string
	switch {
	case ref.Type == "ref/prompt" && ref.Name == "greet" && e.o.Prompts:
		if arg.Name == "language" {
			candidates = languages
		}
	case ref.Type == "ref/resource" && ref.URI == itemTemplate && e.o.Resources:
		if arg.Name == "id" {
			candidates = items
		}
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("completion: no %s %q here", ref.Type, ref.Name+ref.URI)}
	}
	values := []string{}
	for _, c := range candidates {
		if strings.HasPrefix(c, arg.Value) {
			values = append(values, c)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}
