package actors_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// A config path that is a FIFO (a cloned repository can hold a symlink to
// one, or to /dev/stdin) is refused as not a regular file instead of
// blocking the read forever or reading another process's input.
func TestConfig_FIFOIsRefusedWithoutBlocking(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, ".mcp.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	user := configFor(t, "u")
	_, rec := startInMemory(t, quartz.NewMock(t), newFleet(t, echoServers("u")), actors.Options{ConfigPaths: []string{fifo, user}})
	// Should the read block, opening the writer side ends it (EOF) before
	// Close (cleanups run last first), so a regression fails the test
	// instead of hanging it.
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	_, ev := rec.WaitFor(ctx, 0, "config loaded", func(e messages.Event) bool { _, ok := e.(*messages.ConfigLoaded); return ok })
	var refused bool
	for _, d := range ev.(*messages.ConfigLoaded).Diagnostics {
		refused = refused || d.Path == fifo && strings.Contains(d.Message, "is not a regular file")
	}
	if !refused {
		t.Fatalf("diagnostics = %+v", ev.(*messages.ConfigLoaded).Diagnostics)
	}
	rec.WaitState(ctx, 0, "u", messages.StateReady)
}
