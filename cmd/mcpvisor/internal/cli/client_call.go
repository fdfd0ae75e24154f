package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
)

// callCommand calls one tool: mcpvisor call prefix__tool ['{"arg": 1}'].
// Text content is printed as it is, other content as JSON; a tool that
// reports an error (isError) makes the exit code 1.
func callCommand(ctx context.Context, args []string, io IO) int {
	f := newClientFlags("call", "[--json] prefix__tool [ARGUMENTS_JSON | -]", io)
	if code := f.parse(args); code >= 0 {
		return code
	}
	if n := f.fs.NArg(); n < 1 || n > 2 {
		return f.usageError(io.Stderr, `want a tool name and optionally its arguments, e.g. mcpvisor call alpha__echo '{"message": "hi"}'`)
	}
	name := f.fs.Arg(0)
	arguments, err := callArgumentsArg(f.fs.Arg(1), io.Stdin)
	if err != nil {
		return f.usageError(io.Stderr, "%v", err)
	}
	c, err := f.client(io)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	defer c.close()
	var res httpapi.CallResult
	raw, err := c.do(ctx, "POST", "/api/v1/tools/call", httpapi.CallRequest{Name: name, Arguments: arguments}, &res)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	if f.asJSON {
		_, _ = io.Stdout.Write(raw)
	} else {
		writeCallResult(io.Stdout, res)
	}
	if res.IsError {
		fmt.Fprintf(io.Stderr, "mcpvisor call: %s reported an error (isError)\n", name)
		return ExitFailed
	}
	return ExitOK
}

// callArgumentsArg reads the arguments: a JSON object, "-" for standard
// input, or nothing for {}.
func callArgumentsArg(arg string, stdin io.Reader) (json.RawMessage, error) {
	data := []byte(arg)
	if arg == "-" {
		var err error
		if data, err = io.ReadAll(stdin); err != nil {
			return nil, fmt.Errorf("reading arguments from standard input: %w", err)
		}
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return json.RawMessage("{}"), nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf(`arguments must be a JSON object, e.g. '{"message": "hi"}' (%v)`, err)
	}
	return data, nil
}

// writeCallResult prints text content as it is and anything else as JSON.
func writeCallResult(w io.Writer, res httpapi.CallResult) {
	for _, c := range res.Content {
		var item struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &item) == nil && item.Type == "text" {
			fmt.Fprintln(w, item.Text)
			continue
		}
		fmt.Fprintln(w, string(c))
	}
	if len(res.Content) == 0 && len(res.StructuredContent) > 0 {
		var out bytes.Buffer
		if json.Indent(&out, res.StructuredContent, "", "  ") != nil {
			out.Reset()
			out.Write(res.StructuredContent)
		}
		fmt.Fprintln(w, out.String())
	}
}
