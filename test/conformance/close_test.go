package conformance_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// Close leaves nothing behind: with every real server up on every
// transport, and a call through each, Close returns with none of the
// server processes alive, no child of ours left besides the HTTP servers
// the test runs itself, and exactly the file descriptors open before
// Start.
//
// Not parallel, so that no other test opens or closes descriptors or
// starts children meanwhile (parallel tests wait until it is done).
func TestClose_LeavesNoProcessOrDescriptor(t *testing.T) {
	ctx := actorstest.Context(t)
	streamable := startHTTPServer(ctx, t, "streamableHttp")
	sse := startHTTPServer(ctx, t, "sse")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	servers := map[string]testkit.Server{
		"everything":      everythingStdio(),
		"everything-http": streamable.entry(),
		"everything-sse":  sse.entry(),
		"filesystem":      filesystemStdio(dir),
		"memory":          memoryStdio(filepath.Join(dir, "memory.jsonl")),
		"thinking":        thinkingStdio(0),
	}
	tools := map[string][]string{
		"everything": everythingTools, "everything-http": everythingTools, "everything-sse": everythingTools,
		"filesystem": filesystemTools, "memory": memoryTools, "thinking": thinkingTools,
	}
	ours := testkit.Children(t) // the two HTTP servers
	before := testkit.OpenFDs(t)

	sup, rec, _ := startSupervisor(t, servers)
	for name := range servers {
		rec.WaitState(ctx, 0, name, messages.StateReady)
		waitTools(ctx, t, rec, 0, name, tools[name])
	}
	awaitView(ctx, t, sup)
	for _, name := range []string{"everything", "everything-http", "everything-sse"} {
		callText(ctx, t, sup, name+"__echo", map[string]any{"message": "x"})
	}
	callText(ctx, t, sup, "filesystem__read_text_file", map[string]any{"path": filepath.Join(dir, "a.txt")})
	callText(ctx, t, sup, "memory__read_graph", map[string]any{})
	callText(ctx, t, sup, "thinking__sequentialthinking", map[string]any{"thought": "x", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": false})
	pids := pidsSeen(rec)
	if len(pids) != 4 {
		t.Fatalf("stdio pids seen = %v, want 4", pids)
	}

	closeStart := time.Now()
	if err := sup.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	t.Logf("Close took %v", time.Since(closeStart).Round(time.Millisecond))
	for _, pid := range pids {
		if testkit.ProcessAlive(pid) {
			t.Errorf("server process %d alive after Close", pid)
		}
	}
	if got := testkit.Children(t); !slices.Equal(got, ours) {
		t.Errorf("children after Close = %v, want only the test's HTTP servers %v", got, ours)
	}
	after := testkit.OpenFDs(t)
	for fd, target := range after {
		if was, ok := before[fd]; !ok || was != target {
			t.Errorf("fd %s -> %s%s opened since Start and still open after Close", fd, target, socketInfo(t, target))
		}
	}
	for fd, target := range before {
		if _, ok := after[fd]; !ok {
			t.Errorf("fd %s -> %s open before Start was closed by Close", fd, target)
		}
	}
}
