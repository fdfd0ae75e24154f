package testkit

import (
	"strings"

	"encoding/json"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"os"
	"path/filepath"
	"testing"
)

// Server is one entry of a test config file.
type Server struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Type    string            `json:"type,omitempty"`
	Restart string            `json:"restart,omitempty"`
	// ConnectTimeout is a duration ("5m"); empty: the default.
	ConnectTimeout string `json:"connectTimeout,omitempty"`
}

// Example is an entry that runs the example server from bin.
func Example(bin string, args ...string) Server {
	return Server{Command: bin, Args: append([]string{"example-server"}, args...)}
}

// WriteConfig writes {"mcpServers": servers} to path atomically (write a
// temporary file, rename it over path), as editors do.
func WriteConfig(t testing.TB, path string, servers map[string]Server) {
	t.Helper()
	data, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// Text is the concatenated text content of a tool result.
func Text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
