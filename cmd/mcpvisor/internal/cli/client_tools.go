package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/httpapi"
)

// toolsCommand lists every ready server's tools by their server__tool
// names, which `mcpvisor call` takes.
func toolsCommand(ctx context.Context, args []string, io IO) int {
	f := newClientFlags("tools", "[--json]", io)
	if code := f.parse(args); code >= 0 {
		return code
	}
	if f.fs.NArg() > 0 {
		return f.usageError(io.Stderr, "tools takes no arguments (got %q)", f.fs.Args())
	}
	c, err := f.client(io)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	defer c.close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var list httpapi.ToolList
	raw, err := c.do(ctx, "GET", "/api/v1/tools", nil, &list)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	if f.asJSON {
		_, _ = io.Stdout.Write(raw)
		return ExitOK
	}
	if len(list.Tools) == 0 {
		fmt.Fprintln(io.Stdout, "no tools: no server is ready (see mcpvisor status)")
		return ExitOK
	}
	rows := [][]string{{"NAME", "DESCRIPTION"}}
	for _, t := range list.Tools {
		rows = append(rows, []string{t.Name, oneLine(t.Description, 80)})
	}
	writeTable(io.Stdout, "", rows)
	return ExitOK
}
