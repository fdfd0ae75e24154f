package cli

import (
	"context"
	"fmt"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
)

// toolsCommand lists every ready server's tools by their exposed
// prefix__tool names, which `mcpvisor call` takes, with the server each
// belongs to as its config names it.
func toolsCommand(ctx context.Context, args []string, io IO) int {
	var list httpapi.ToolList
	if code := getCommand(ctx, "tools", "/api/v1/tools", args, io, &list); code >= 0 {
		return code
	}
	if len(list.Tools) == 0 {
		fmt.Fprintln(io.Stdout, "no tools: no server is ready (see mcpvisor status)")
		return ExitOK
	}
	rows := [][]string{{"NAME", "SERVER", "DESCRIPTION"}}
	for _, t := range list.Tools {
		rows = append(rows, []string{t.Name, t.Server, oneLine(t.Description, 80)})
	}
	writeTable(io.Stdout, "", rows)
	return ExitOK
}
