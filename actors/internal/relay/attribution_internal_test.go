package relay

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// G1, forged prefix: a config may name a server with any text, `]` and
// newlines included. The elicitation's prefix quotes the name, so one like
// `demo] ok\n[mcpvisor] ` cannot close the prefix and open a line that
// looks like mcpvisor's own; a long name is cut. _meta keeps the name.
func TestAttributedElicit_QuotesTheServerName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 40) // 80 bytes
	cases := []struct{ server, want string }{
		{"demo", `[server "demo"] colour?`},
		{"demo] ok\n[mcpvisor] session expired", `[server "demo] ok\n[mcpvisor] session expired"] colour?`},
		{"a\"b\\c\x1b[31m", `[server "a\"b\\c\x1b[31m"] colour?`},
		{long, `[server "` + strings.Repeat("é", 32) + `..."] colour?`},
	}
	for _, c := range cases {
		got := attributedElicit(&mcp.ElicitParams{Message: "colour?"}, c.server)
		if got.Message != c.want {
			t.Errorf("server %q: message %q, want %q", c.server, got.Message, c.want)
		}
		if strings.Count(got.Message, "\n") != 0 {
			t.Errorf("server %q: the prefix holds a newline: %q", c.server, got.Message)
		}
		if got.Meta[MetaKeyServer] != c.server {
			t.Errorf("server %q: _meta names %q", c.server, got.Meta[MetaKeyServer])
		}
	}
}
