package ondisk_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
)

// A config path that is a FIFO (a cloned repository can hold a symlink to
// one, or to /dev/stdin) is refused as not a regular file instead of
// blocking the read forever or reading another process's input; the
// files beside it are read as usual.
func TestReadConfigFiles_FIFOIsRefusedWithoutBlocking(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, ".mcp.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Should the read block, opening the writer side ends it (EOF) at
	// cleanup, so a regression fails the test instead of hanging it.
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got := ondisk.ReadConfigFiles([]string{fifo, user, filepath.Join(dir, "missing.json")})
	if err := got[0].ReadErr; err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("the FIFO: ReadErr %v, want it refused as not a regular file", got[0].ReadErr)
	}
	if got[1].ReadErr != nil || string(got[1].Data) != `{"mcpServers": {}}` {
		t.Errorf("the file beside it: %q, %v", got[1].Data, got[1].ReadErr)
	}
	if !got[2].Missing {
		t.Errorf("a missing file: %+v, want Missing", got[2])
	}
}
