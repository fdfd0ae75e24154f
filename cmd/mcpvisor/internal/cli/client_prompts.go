package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
)

// promptsCommand lists every ready server's prompts by the names that
// `mcpvisor prompt` takes, with their arguments (required ones marked *).
func promptsCommand(ctx context.Context, args []string, io IO) int {
	var list httpapi.PromptList
	if code := getCommand(ctx, "prompts", "/api/v1/prompts", args, io, &list); code >= 0 {
		return code
	}
	if len(list.Prompts) == 0 {
		fmt.Fprintln(io.Stdout, "no prompts: no ready server offers any (see mcpvisor status)")
		return ExitOK
	}
	rows := [][]string{{"NAME", "ARGUMENTS", "DESCRIPTION"}}
	for _, p := range list.Prompts {
		names := make([]string, 0, len(p.Arguments))
		for _, a := range p.Arguments {
			if a.Required {
				names = append(names, a.Name+"*")
			} else {
				names = append(names, a.Name)
			}
		}
		rows = append(rows, []string{p.Name, oneLine(strings.Join(names, ","), 40), oneLine(p.Description, 80)})
	}
	writeTable(io.Stdout, "", rows)
	return ExitOK
}

// promptCommand gets one prompt: mcpvisor prompt prefix__prompt
// ['{"arg": "value"}']. Each message prints as "role: text".
func promptCommand(ctx context.Context, args []string, io IO) int {
	f := newClientFlags("prompt", "[--json] prefix__prompt [ARGUMENTS_JSON | -]", io)
	if code := f.parse(args); code >= 0 {
		return code
	}
	if n := f.fs.NArg(); n < 1 || n > 2 {
		return f.usageError(io.Stderr, `want a prompt name and optionally its arguments, e.g. mcpvisor prompt alpha__greet '{"name": "Ada"}'`)
	}
	name := f.fs.Arg(0)
	arguments, err := promptArgumentsArg(f.fs.Arg(1), io.Stdin)
	if err != nil {
		return f.usageError(io.Stderr, "%v", err)
	}
	c, err := f.client(io)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	defer c.close()
	var res httpapi.PromptResult
	raw, err := c.do(ctx, "POST", "/api/v1/prompts/get", httpapi.PromptGetRequest{Name: name, Arguments: arguments}, &res)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	if f.asJSON {
		_, _ = io.Stdout.Write(raw)
		return ExitOK
	}
	for _, m := range res.Messages {
		var msg struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m, &msg) != nil {
			fmt.Fprintln(io.Stdout, string(m))
			continue
		}
		var text struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(msg.Content, &text) == nil && text.Type == "text" {
			fmt.Fprintf(io.Stdout, "%s: %s\n", msg.Role, text.Text)
			continue
		}
		fmt.Fprintf(io.Stdout, "%s: %s\n", msg.Role, msg.Content)
	}
	return ExitOK
}

// promptArgumentsArg reads a prompt's arguments: a JSON object of strings,
// "-" for standard input, or nothing.
func promptArgumentsArg(arg string, stdin io.Reader) (map[string]string, error) {
	raw, err := callArgumentsArg(arg, stdin)
	if err != nil {
		return nil, err
	}
	var out map[string]string
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf(`prompt arguments are strings, e.g. '{"name": "Ada"}' (%v)`, err)
	}
	return out, nil
}
