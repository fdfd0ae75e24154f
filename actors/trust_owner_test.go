package actors_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// An approval another local user wrote does not make a project entry
// run. The trust store sits in a directory every user may write (a
// shared config directory, sticky as /tmp); another user, really running
// as themselves, writes there a store that approves the project file as it is.
// The entry stays untrusted, is never dialed, and the config errors say
// whose the store is.
func TestSupervisor_ApprovalWrittenByAnotherUserRunsNothing(t *testing.T) {
	t.Parallel()
	other := testkit.Stranger(t)
	ctx := actorstest.Context(t)
	project := filepath.Join(t.TempDir(), "proj", ".mcp.json")
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, project, map[string]any{"a": map[string]any{"command": "in-memory"}})
	data, err := os.ReadFile(project)
	if err != nil {
		t.Fatal(err)
	}
	d := config.DecideTrust([]config.FileContent{{Path: project, Data: data}}, &config.TrustPolicy{NeedApproval: map[string]bool{project: true}})
	store := filepath.Join(testkit.SharedDir(t), "trust.json")
	other.WriteFile(ctx, t, store, config.Approvals{}.Approve(d[0], time.Now()).Marshal())

	f := newFleet(t, echoServers("a"))
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{
		ConfigPaths: []string{project}, ApprovalRequired: []string{project}, TrustFile: store, Logger: zap.NewNop(),
	})
	rec.WaitState(ctx, 0, "a", messages.StateUntrusted)
	if n := f.dialCount("a"); n != 0 {
		t.Fatalf("the entry another user approved was dialed %d times", n)
	}
	var said bool
	for _, e := range sup.Status().ConfigErrors {
		said = said || e.Path == store && strings.Contains(e.Message, store+" is owned by uid "+strconv.Itoa(other.UID))
	}
	if !said {
		t.Fatalf("config errors = %+v, want the store refused as nobody's", sup.Status().ConfigErrors)
	}
}
