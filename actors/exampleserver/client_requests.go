//lint:file-ignore SA1019 sampling and roots are deprecated from protocol 2026-07-28 on (SEP-2577) but are what these tools exist to exercise.

package exampleserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools that ask the client for something, and the client capability
// each needs. Like the reference servers, the example server lists each
// only to a client that advertised that capability.
var clientRequestTools = map[string]func(*mcp.ClientCapabilities) bool{
	"sample": func(c *mcp.ClientCapabilities) bool { return c.Sampling != nil },
	"elicit": func(c *mcp.ClientCapabilities) bool { return c.Elicitation != nil },
	"roots":  func(c *mcp.ClientCapabilities) bool { return c.RootsV2 != nil || c.Roots.ListChanged },
}

// The capability names, for the error a client that calls anyway gets.
var clientRequestCapability = map[string]string{"sample": "sampling", "elicit": "elicitation", "roots": "roots"}

type sampleIn struct {
	Prompt string `json:"prompt" jsonschema:"the text to send to the client's model"`
}

type elicitIn struct {
	Message string `json:"message" jsonschema:"the question to put to the user"`
}

// addClientRequestTools adds sample, elicit and roots. Each asks the client
// through an input request (SEP-2322), which the go-sdk turns into a
// sampling/createMessage, elicitation/create or roots/list request to the
// client on protocols before 2026-07-28, and sends in-band on 2026-07-28.
func addClientRequestTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "sample", Description: "Asks the client's model to answer the prompt (sampling/createMessage); shown to clients that advertise sampling."}, sample)
	mcp.AddTool(srv, &mcp.Tool{Name: "elicit", Description: "Asks the user a question (elicitation/create); shown to clients that advertise elicitation."}, elicit)
	mcp.AddTool(srv, &mcp.Tool{Name: "roots", Description: "Lists the client's roots (roots/list); shown to clients that advertise roots."}, roots)
	srv.AddReceivingMiddleware(hideUnadvertised)
}

// hideUnadvertised drops from tools/list the tools whose client capability
// the calling client did not advertise (in its initialize, or on
// 2026-07-28 in the request's _meta).
func hideUnadvertised(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		lreq, ok2 := req.(*mcp.ListToolsRequest)
		if err != nil || !ok || !ok2 || list == nil {
			return res, err
		}
		caps := clientCapabilities(lreq.ClientCapabilities())
		list.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool {
			advertised, gated := clientRequestTools[t.Name]
			return gated && !advertised(caps)
		})
		return list, nil
	}
}

func clientCapabilities(c *mcp.ClientCapabilities) *mcp.ClientCapabilities {
	if c == nil {
		return &mcp.ClientCapabilities{}
	}
	return c
}

// errNotAdvertised is the result of calling sample, elicit or roots
// without the capability: a tool error, not a request to the client.
var errNotAdvertised = errors.New("the client did not advertise the capability")

func requireCapability(req *mcp.CallToolRequest, tool string) error {
	if !clientRequestTools[tool](clientCapabilities(req.ClientCapabilities())) {
		return fmt.Errorf("%s needs %s: %w", tool, clientRequestCapability[tool], errNotAdvertised)
	}
	return nil
}

func sample(_ context.Context, req *mcp.CallToolRequest, in sampleIn) (*mcp.CallToolResult, any, error) {
	if err := requireCapability(req, "sample"); err != nil {
		return nil, nil, err
	}
	switch r := req.Params.InputResponses["sample"].(type) {
	case nil:
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sample": &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
			MaxTokens: 100,
		}}}, nil, nil
	case *mcp.CreateMessageWithToolsResult:
		var parts []string
		for _, c := range r.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				parts = append(parts, t.Text)
			}
		}
		return text(fmt.Sprintf("model %s answered: %s", r.Model, strings.Join(parts, " "))), nil, nil
	case *mcp.CreateMessageResult:
		t, _ := r.Content.(*mcp.TextContent)
		if t == nil {
			t = &mcp.TextContent{}
		}
		return text(fmt.Sprintf("model %s answered: %s", r.Model, t.Text)), nil, nil
	default:
		return nil, nil, fmt.Errorf("sample: unexpected answer %T", r)
	}
}

// answerSchema is what elicit asks for: one required string.
var answerSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"answer": map[string]any{"type": "string", "description": "your answer"}},
	"required":   []string{"answer"},
}

func elicit(_ context.Context, req *mcp.CallToolRequest, in elicitIn) (*mcp.CallToolResult, any, error) {
	if err := requireCapability(req, "elicit"); err != nil {
		return nil, nil, err
	}
	switch r := req.Params.InputResponses["elicit"].(type) {
	case nil:
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"elicit": &mcp.ElicitParams{Message: in.Message, RequestedSchema: answerSchema}}}, nil, nil
	case *mcp.ElicitResult:
		if r.Action != "accept" {
			return text("the user chose " + r.Action), nil, nil
		}
		return text(fmt.Sprintf("the user answered: %v", r.Content["answer"])), nil, nil
	default:
		return nil, nil, fmt.Errorf("elicit: unexpected answer %T", r)
	}
}

func roots(_ context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
	if err := requireCapability(req, "roots"); err != nil {
		return nil, nil, err
	}
	switch r := req.Params.InputResponses["roots"].(type) {
	case nil:
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil, nil
	case *mcp.ListRootsResult:
		uris := make([]string, 0, len(r.Roots))
		for _, root := range r.Roots {
			uris = append(uris, root.URI)
		}
		if len(uris) == 0 {
			return text("no roots"), nil, nil
		}
		return text(strings.Join(uris, "\n")), nil, nil
	default:
		return nil, nil, fmt.Errorf("roots: unexpected answer %T", r)
	}
}
