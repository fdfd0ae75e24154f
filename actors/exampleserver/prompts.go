package exampleserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// languages are the values greet's language argument completes to.
var languages = []string{"english", "esperanto", "french", "german", "spanish"}

// addPrompts adds greet, a prompt with a required and an optional
// argument, and status, a prompt without arguments.
func addPrompts(srv *mcp.Server) {
	srv.AddPrompt(&mcp.Prompt{
		Name:        "greet",
		Title:       "Greet someone",
		Description: "Asks for a greeting to a person, in a language.",
		Arguments: []*mcp.PromptArgument{
			{Name: "name", Description: "who to greet", Required: true},
			{Name: "language", Description: "the greeting's language (default english; completes)"},
		},
	}, greet)
	srv.AddPrompt(&mcp.Prompt{
		Name:        "status",
		Title:       "Server status",
		Description: "Asks how the example server is doing; takes no arguments.",
	}, status)
}

func greet(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := req.Params.Arguments["name"]
	if name == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `prompt "greet": argument "name" is required`}
	}
	language := req.Params.Arguments["language"]
	if language == "" {
		language = "english"
	}
	return &mcp.GetPromptResult{
		Description: "A greeting to " + name,
		Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Say hello to %s in %s.", name, language)}},
		},
	}, nil
}

func status(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{
		Description: "The server's status",
		Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "How is the example server doing?"}},
			{Role: "assistant", Content: &mcp.TextContent{Text: "It is serving."}},
		},
	}, nil
}
