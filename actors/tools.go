package actors

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Bounds on one listing. A server that answers every tools/list page with
// a fresh cursor (or the same one again) would otherwise be followed
// forever, growing mcpvisor's memory without end while its status said
// ready; go-sdk's own paginating iterator has no bound.
const (
	maxListPages = 100
	maxListItems = 10_000
)

// errListUnbounded: a listing went past maxListPages or maxListItems, or
// its cursors went round in a circle. The server is failed.
var errListUnbounded = errors.New("listing cut")

// listTools lists every tool of a session, following pagination, within
// maxListPages pages and maxListItems tools; a cursor the server already
// gave is a loop and ends the listing too.
func listTools(ctx context.Context, server string, cs *mcp.ClientSession) ([]messages.Tool, error) {
	var out []messages.Tool
	seen := map[[sha256.Size]byte]bool{} // cursors already followed, by hash: a cursor may be large
	params := &mcp.ListToolsParams{}
	for page := 1; ; page++ {
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			return nil, err
		}
		if len(out)+len(res.Tools) > maxListItems {
			return nil, fmt.Errorf("tools/list: %w after %d pages: the server has more than %d tools", errListUnbounded, page, maxListItems)
		}
		for _, t := range res.Tools {
			out = append(out, toolOf(server, t))
		}
		if res.NextCursor == "" {
			break
		}
		sum := sha256.Sum256([]byte(res.NextCursor))
		switch {
		case seen[sum]:
			return nil, fmt.Errorf("tools/list: %w: page %d gave a cursor the server had given before (its pages loop)", errListUnbounded, page)
		case page >= maxListPages:
			return nil, fmt.Errorf("tools/list: %w: the server still had more after %d pages", errListUnbounded, maxListPages)
		}
		seen[sum] = true
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
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
