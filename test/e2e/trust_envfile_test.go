package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// The incident (T2): approve an entry with "envFile": ".env", then let a
// git pull set NODE_OPTIONS=--require ./evil.js in .env: the server
// restarted with it. Now the running supervisor, which watches .env, sees
// the pull at once, makes the entry untrusted ("changed since approval:
// envFile .env") and stops it: it never starts with the new values; `mcpvisor trust --list` names the change, and
// approving again (the user's decision) runs the new content.
func TestTrust_ChangedEnvFileIsNotRunUntilApprovedAgain(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := newTrustRig(t)
	marker, envFile := filepath.Join(r.dir, "env-seen"), filepath.Join(filepath.Dir(r.project), ".env")
	writeEnvFile(t, envFile, "MARK=approved\n")
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"node": map[string]any{
		"command": "/bin/sh",
		"args":    []string{"-c", `printf '%s %s\n' "$MARK" "$NODE_OPTIONS" >> "$0"; exec "$1" example-server`, marker, bin},
		"envFile": ".env",
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.project, data, 0o600); err != nil {
		t.Fatal(err)
	}
	sup, rec := r.start(t)
	mark := settledUntrusted(t, rec, 0, "node")
	r.trust(t, "--yes", r.project)
	_, ready := rec.WaitState(ctx, mark, "node", messages.StateReady)

	// The read that started node told the watcher to watch .env, before
	// node was planned: once the watcher handled that, the pull alone is
	// seen.
	actorstest.Barrier(ctx, t, sup, actorstest.Watcher)
	mark = rec.Len()
	writeEnvFile(t, envFile, "NODE_OPTIONS=--require ./evil.js\nMARK=evil\n")
	i, _ := rec.WaitState(ctx, mark, "node", messages.StateStopped)
	rec.WaitState(ctx, i, "node", messages.StateUntrusted)
	for _, c := range rec.StateChanges(mark, "node") {
		if strings.HasSuffix(c, "→starting") || strings.HasSuffix(c, "→ready") {
			t.Fatalf("node restarted after the pull: %v\n%s", rec.StateChanges(mark, "node"), rec.Dump())
		}
	}
	st := serverStatus(t, sup, "node")
	if st.State != messages.StateUntrusted || !strings.Contains(st.LastError, "untrusted: changed since approval: envFile .env") {
		t.Fatalf("node = %+v", st)
	}
	if got := readMarker(t, marker); got != "approved \n" {
		t.Fatalf("the server ran with %q", got)
	}
	if err := testkit.WaitProcessGone(ctx, ready.PID); err != nil {
		t.Fatal(err)
	}
	if out := r.trust(t, "--list"); !strings.Contains(out, "changed since approval: envFile .env (server node)") {
		t.Fatalf("trust --list:\n%s", out)
	}

	mark = rec.Len()
	r.trust(t, "--yes", r.project)
	rec.WaitState(ctx, mark, "node", messages.StateReady)
	if got := readMarker(t, marker); got != "approved \nevil --require ./evil.js\n" {
		t.Fatalf("after approving again the server ran with %q", got)
	}
}

func writeEnvFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readMarker(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
