package gateway_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// Claude Code, behind a gateway entry named mcpvisor, named
// desktop-commander's give_feedback_to_desktop_commander
// mcp__mcpvisor__desktop-commander__give_feedback_to_desktop_commander,
// 68 characters, and the Anthropic API refuses a tool name over 64, so
// every turn failed. `serve` now exposes it within 48 (64 less 16 for the
// client's wrapping), its prefix cut and ended with a stable hash; a call
// of that name reaches the tool; serve says on stderr which name it
// shortened and how to get a readable one; and `check`, reading the
// catalog cache serve left, warns of the name before any client sees it.
func TestServe_LongToolNameFitsClaudeCodeAndCheckWarnsOfIt(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	const feedback = "give_feedback_to_desktop_commander"
	dir := t.TempDir()
	cfg, cache := filepath.Join(dir, ".mcp.json"), filepath.Join(dir, "cache")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"desktop-commander": testkit.Example(bin, "--name", "desktop-commander", "--tool", feedback)})

	cmd := serveCommand("--config", cfg, "--cache-dir", cache)
	stderr := newLineWaiter()
	cmd.Stderr = stderr
	c := connect(t, ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, "")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("mcpvisor serve stderr:\n%s", stderr)
		}
	})
	sum := sha256.Sum256([]byte("desktop-commander"))
	short := "deskt-" + hex.EncodeToString(sum[:])[:6] + "__" + feedback
	want := append(qualified("desktop-commander"), short)
	slices.Sort(want)
	c.waitTools(ctx, want)
	if n := len("mcp__mcpvisor__" + short); n > 64 {
		t.Fatalf("%s is %d characters in Claude Code", short, n)
	}
	if text, isErr := c.call(ctx, short, map[string]any{"message": "feedback"}); text != "feedback" || isErr {
		t.Fatalf("%s = %q (isError %v), want the tool's echo", short, text, isErr)
	}
	stderr.waitLine(ctx, t, "name shortened", `"server": "desktop-commander"`, feedback, `"claude_code_length": 68`, "--names bare")
	if err := c.cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	out, err := exec.CommandContext(ctx, bin, "check", "--cache-dir", cache, cfg).CombinedOutput()
	if err != nil {
		t.Fatalf("check: %v\n%s", err, out)
	}
	for _, part := range []string{`server "desktop-commander": tool "` + feedback + `" is 68 characters in Claude Code`,
		"serve exposes it as " + short, `set a shorter "prefix" on the server`, "--names bare"} {
		if !strings.Contains(string(out), part) {
			t.Errorf("check output lacks %q:\n%s", part, out)
		}
	}
}
