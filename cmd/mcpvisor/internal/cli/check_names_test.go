package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// With no cached catalog check does not know a server's tool names, but a
// prefix so long that common tool names would pass 64 characters in
// Claude Code (mcp__mcpvisor__<prefix>__<tool>) is a warning that names
// the server, the room left, and the fix; a short prefix is not.
func TestCheck_WarnsOfAPrefixThatLeavesLittleRoomForToolNames(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	long := "an-mcp-server-with-a-very-long-name" // 35 characters: 12 left for tool names
	cfg := writeFile(t, dir, "mcp.json", `{"mcpServers": {"`+long+`": {"command": "srv"}, "gh": {"command": "srv"}}}`)
	res := mcpvisor(ctx, map[string]string{}, "", "check", "--cache-dir", filepath.Join(dir, "no-cache"), cfg)
	if res.code != 0 {
		t.Fatalf("exit %d: %s %s", res.code, res.stdout, res.stderr)
	}
	want := cfg + `:1:17: warning: server "` + long + `": its prefix "` + long + `" leaves 12 characters for tool names before mcp__mcpvisor__` +
		long + `__<tool> passes 64 characters in Claude Code; serve shortens longer names, ending them with a hash; for readable names, set a shorter "prefix" on the server`
	if !strings.Contains(res.stdout, want) {
		t.Fatalf("stdout lacks\n%s\n\nstdout:\n%s", want, res.stdout)
	}
	if strings.Contains(res.stdout, `server "gh"`) {
		t.Fatalf("a short prefix was warned of:\n%s", res.stdout)
	}
	if !strings.Contains(res.stdout, "--names bare") {
		t.Fatalf("the warning does not offer --names bare:\n%s", res.stdout)
	}
}
