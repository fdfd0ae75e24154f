package actors

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
)

// listTools lists every tool of a session, following pagination.
func listTools(ctx context.Context, server string, cs *mcp.ClientSession) ([]messages.Tool, error) {
	var out []messages.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, toolOf(server, t))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func toolOf(server string, t *mcp.Tool) messages.Tool {
	tool := messages.Tool{
		Server:       server,
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  t.InputSchema,
		OutputSchema: t.OutputSchema,
	}
	if t.Annotations != nil {
		tool.Annotations = t.Annotations
	}
	h := sha256.New()
	// json.Marshal sorts map keys, so equal schemas hash equally whatever
	// order the server sent them in.
	_ = json.NewEncoder(h).Encode([]any{t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema, tool.Annotations})
	tool.Hash = hex.EncodeToString(h.Sum(nil)[:12])
	return tool
}
