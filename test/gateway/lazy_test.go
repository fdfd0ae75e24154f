package gateway_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// Under `serve --autostart lazy` a server is started once to list its
// tools, which the first tools/list shows, and stopped; a call through
// the gateway starts it again and gets its answer. Each start of the
// server's process appends a line to a file, which counts them.
func TestServe_LazyServerIsListedThenStartedByACall(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	cfg := filepath.Join(dir, ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{
		"alpha": {Command: "/bin/sh", Args: []string{"-c", `echo start >> "$1" && exec "$2" example-server --name alpha`, "sh", starts, bin}},
	})
	count := func() int {
		data, err := os.ReadFile(starts)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(data), "start\n")
	}
	// The first list waits for the listing start to settle: it is over
	// (the server idle again) once the list is answered.
	c := startServe(t, ctx, "--config", cfg, "--autostart", "lazy", "--startup-wait", "1m")
	if got, want := c.names(ctx), qualified("alpha"); !cmp.Equal(got, want) {
		t.Fatalf("tools of the idle lazy server (-want +got):\n%s", cmp.Diff(want, got))
	}
	if n := count(); n != 1 {
		t.Fatalf("%d starts before any call, want the one that listed the tools", n)
	}
	if text, isErr := c.call(ctx, "alpha__echo", map[string]any{"message": "hi"}); isErr || text != "hi" {
		t.Fatalf("alpha__echo = %q (isError %v), want hi", text, isErr)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d starts after the call, want 2: the call starts the idle server", n)
	}
}
