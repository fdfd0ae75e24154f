package actors_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// The config actor reads the trust store with every read: an unapproved
// project entry is never dialed and is logged as a warning (all an editor
// shows of `serve`); an approval in the store starts it on the next read;
// a store that cannot be used approves nothing and says so.
func TestSupervisor_ProjectFileRunsOnlyAsApproved(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	project, user := filepath.Join(dir, "proj", ".mcp.json"), filepath.Join(dir, "user.json")
	store := filepath.Join(dir, "config", "trust.json")
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, project, map[string]any{"a": map[string]any{"command": "in-memory"}})
	writeConfig(t, user, map[string]any{"u": map[string]any{"command": "in-memory"}})
	core, logs := observer.New(zap.WarnLevel)
	f := newFleet(t, echoServers("a", "u"))
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{
		ConfigPaths: []string{project, user}, ApprovalRequired: []string{project}, TrustFile: store, Logger: zap.New(core),
	})
	rec.WaitState(ctx, 0, "u", messages.StateReady)
	rec.WaitState(ctx, 0, "a", messages.StateUntrusted)
	if n := f.dialCount("a"); n != 0 {
		t.Fatalf("the unapproved entry was dialed %d times", n)
	}
	warned := logs.FilterMessage("project config file not approved: its servers do not run").All()
	if len(warned) != 1 || warned[0].ContextMap()["file"] != project || warned[0].ContextMap()["approve"] != "mcpvisor trust "+project {
		t.Fatalf("warnings = %+v", logs.All())
	}

	data, err := os.ReadFile(project)
	if err != nil {
		t.Fatal(err)
	}
	err = ondisk.UpdateApprovals(store, func(a config.Approvals) (config.Approvals, error) {
		d := config.DecideTrust([]config.FileContent{{Path: project, Data: data}}, &config.TrustPolicy{NeedApproval: map[string]bool{project: true}})
		return a.Approve(d[0], time.Now()), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mark := rec.Len()
	reload(t, ctx, sup, rec)
	rec.WaitState(ctx, mark, "a", messages.StateReady)

	if err := os.WriteFile(store, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	mark = rec.Len()
	reload(t, ctx, sup, rec)
	rec.WaitState(ctx, mark, "a", messages.StateStopped)
	st := sup.Status()
	var said bool
	for _, d := range st.ConfigErrors {
		said = said || d.Path == store && d.Severity == messages.SeverityError && strings.Contains(d.Message, "cannot use the trust store")
	}
	if !said {
		t.Fatalf("config errors = %+v", st.ConfigErrors)
	}
	for _, s := range st.Servers {
		if s.Name == "a" && s.State != messages.StateUntrusted {
			t.Fatalf("a = %+v, want untrusted", s)
		}
	}
}
