package exampleserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Message string `json:"message" jsonschema:"the text to send back"`
}

type addIn struct {
	A float64 `json:"a" jsonschema:"first addend"`
	B float64 `json:"b" jsonschema:"second addend"`
}

type sleepIn struct {
	Ms int `json:"ms" jsonschema:"milliseconds to sleep before answering"`
}

type getenvIn struct {
	Name string `json:"name" jsonschema:"environment variable to read"`
}

type empty struct{}

// addBasicTools adds the tools every example server has, extra
// tool-1 ... tool-N, and the named tools.
func addBasicTools(srv *mcp.Server, extra int, named []string) {
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Returns the message unchanged."}, echo)
	mcp.AddTool(srv, &mcp.Tool{Name: "add", Description: "Adds two numbers."}, add)
	mcp.AddTool(srv, &mcp.Tool{Name: "sleep", Description: "Sleeps, then answers; honours cancellation."}, sleep)
	mcp.AddTool(srv, &mcp.Tool{Name: "fail", Description: "Always fails with isError set."}, fail)
	mcp.AddTool(srv, &mcp.Tool{Name: "pid", Description: "Returns the server's process id."}, pid)
	mcp.AddTool(srv, &mcp.Tool{Name: "getenv", Description: "Returns an environment variable's value."}, getenv)
	mcp.AddTool(srv, &mcp.Tool{Name: "crash", Description: "Exits the process at once with status 2."}, crash)
	for i := 1; i <= extra; i++ {
		mcp.AddTool(srv, &mcp.Tool{Name: "tool-" + strconv.Itoa(i), Description: "Extra tool; echoes its message."}, echo)
	}
	for _, name := range named {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: "Named tool; echoes its message."}, echo)
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
	return text(in.Message), nil, nil
}

func add(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
	return text(strconv.FormatFloat(in.A+in.B, 'f', -1, 64)), nil, nil
}

func sleep(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
	select {
	case <-time.After(time.Duration(in.Ms) * time.Millisecond):
		return text(fmt.Sprintf("slept %dms", in.Ms)), nil, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

func fail(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	return nil, nil, errors.New("this tool always fails")
}

func pid(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	return text(strconv.Itoa(os.Getpid())), nil, nil
}

func getenv(_ context.Context, _ *mcp.CallToolRequest, in getenvIn) (*mcp.CallToolResult, any, error) {
	return text(os.Getenv(in.Name)), nil, nil
}

func crash(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	fmt.Fprintln(os.Stderr, "example-server: crash tool called, exiting with status 2")
	os.Exit(2)
	return nil, nil, nil
}
