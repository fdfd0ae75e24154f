package session

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

// Bounds on one listing, of any kind. A server that answers every page
// with a fresh cursor (or the same one again) would otherwise be followed
// forever, growing mcpvisor's memory without end while its status said
// ready; go-sdk's own paginating iterators have no bound.
const (
	maxListPages = 100
	maxListItems = 10_000
)

// errListUnbounded: a listing went past maxListPages or maxListItems, or
// its cursors went round in a circle. The server is failed.
var errListUnbounded = errors.New("listing cut")

// listPaged follows a paginated listing of one kind (method names it in
// errors: "tools/list"), within maxListPages pages and maxListItems items
// (noun names them: "tools"); a cursor the server already gave is a loop
// and ends the listing too. page fetches the page at a cursor.
func listPaged[T any](ctx context.Context, method, noun string, page func(ctx context.Context, cursor string) ([]T, string, error)) ([]T, error) {
	var out []T
	seen := map[[sha256.Size]byte]bool{} // cursors already followed, by hash: a cursor may be large
	cursor := ""
	for n := 1; ; n++ {
		items, next, err := page(ctx, cursor)
		if err != nil {
			return nil, err
		}
		if len(out)+len(items) > maxListItems {
			return nil, fmt.Errorf("%s: %w after %d pages: the server has more than %d %s", method, errListUnbounded, n, maxListItems, noun)
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		sum := sha256.Sum256([]byte(next))
		switch {
		case seen[sum]:
			return nil, fmt.Errorf("%s: %w: page %d gave a cursor the server had given before (its pages loop)", method, errListUnbounded, n)
		case n >= maxListPages:
			return nil, fmt.Errorf("%s: %w: the server still had more after %d pages", method, errListUnbounded, maxListPages)
		}
		seen[sum] = true
		cursor = next
	}
}

// listTools lists every tool of a session, bounded as listPaged.
func listTools(ctx context.Context, server string, cs *mcp.ClientSession) ([]messages.Tool, error) {
	raw, err := listPaged(ctx, "tools/list", "tools", func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
		res, raw, err := listPage(ctx, "tools/list", "tools", func(ctx context.Context) (*mcp.ListToolsResult, error) {
			return cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		})
		if err != nil {
			return nil, "", err
		}
		tools := res.Tools
		if raw != nil {
			tools = make([]*mcp.Tool, len(res.Tools))
			for i, t := range res.Tools {
				if t != nil {
					t = rawSchemas(t, raw[t.Name])
				}
				tools[i] = t
			}
		}
		return tools, res.NextCursor, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]messages.Tool, 0, len(raw))
	for _, t := range raw {
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
	tool.Hash = contentHash(t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema, tool.Annotations)
	return tool
}

// contentHash hashes an item's fields. json.Marshal sorts map keys, so
// equal schemas hash equally whatever order the server sent them in.
func contentHash(fields ...any) string {
	h := sha256.New()
	_ = json.NewEncoder(h).Encode(fields)
	return hex.EncodeToString(h.Sum(nil)[:12])
}
