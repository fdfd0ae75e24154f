package actors_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// An entry whose VS Code input has no value waits in needs-input; storing
// the value (the store is watched, like the config files) starts it, with
// no resync. The value of a password input never shows in any output:
// status, events, logs (debug included), errors, tools.
func TestSupervisor_StoredInputStartsTheEntryAndNeverShows(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	const secret = "s3cr3t-input-value-93f1"
	path := filepath.Join(dir, "proj", ".vscode", "mcp.json")
	store := filepath.Join(dir, "config", "mcpvisor", "inputs.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"inputs": [{"type": "promptString", "id": "token", "password": true}],
	  "servers": {"api": {"command": "in-memory", "args": ["serve", "${input:token}"]}}}`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zapcore.DebugLevel)
	f := newFleet(t, echoServers("api"))
	// The first dial fails with an error that quotes the value, as a
	// careless server or transport might.
	f.breakDials("api", fmt.Errorf("server refused token %s", secret))
	sup, err := actors.Start(actors.Options{
		ConfigPaths: []string{path}, InputsFile: store, Logger: zap.New(core),
		Clock: quartz.NewReal(), Dial: f.dial, ProbeInterval: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := actorstest.Record(t, sup)
	t.Cleanup(func() { _ = sup.Close() })

	_, waiting := rec.WaitState(ctx, 0, "api", messages.StateNeedsInput)
	if !strings.Contains(waiting.Reason, "mcpvisor input set token") {
		t.Fatalf("needs-input reason %q does not name the command", waiting.Reason)
	}
	if n := f.dialCount("api"); n != 0 {
		t.Fatalf("dialed %d times before the input had a value", n)
	}

	mark := rec.Len()
	if err := ondisk.UpdateInputs(store, config.InputScope{}, func(v map[string]string) { v["token"] = secret }); err != nil {
		t.Fatal(err)
	}
	_, failed := rec.WaitState(ctx, mark, "api", messages.StateFailed) // no resync: the watcher saw the store
	if strings.Contains(failed.Error, secret) || !strings.Contains(failed.Error, "[redacted]") {
		t.Fatalf("failure %q: want the value redacted", failed.Error)
	}
	f.breakDials("api", nil)
	rec.WaitState(ctx, mark, "api", messages.StateReady) // the retry after the backoff
	if info, err := os.Stat(store); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("store mode %v, %v: want 0600", info.Mode(), err)
	}

	outputs := map[string]any{"status": sup.Status(), "tools": sup.Tools()}
	outputs["events"] = rec.Since(0)
	for what, v := range outputs {
		data, _ := json.Marshal(v)
		if strings.Contains(string(data), secret) {
			t.Errorf("the input's value shows in %s: %s", what, data)
		}
	}
	for _, e := range logs.All() {
		data, _ := json.Marshal(e.ContextMap())
		if strings.Contains(e.Message+string(data), secret) {
			t.Errorf("the input's value shows in the log: %s %s", e.Message, data)
		}
	}
}

// T1, as run applies it: an approved project file's ${input:ID} reads the
// values stored for its project only. The user's own value and another
// project's leave the entry waiting; storing one for its project (the
// store is watched) starts it with that value.
func TestSupervisor_ProjectFileReadsOnlyItsProjectsInputs(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	project := filepath.Join(dir, "projB", ".vscode", "mcp.json")
	trust, store := filepath.Join(dir, "config", "trust.json"), filepath.Join(dir, "config", "inputs.json")
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"inputs": [{"type": "promptString", "id": "github-pat", "password": true}],
	  "servers": {"gh": {"command": "in-memory", "args": ["${input:github-pat}"]}}}`
	if err := os.WriteFile(project, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	err := ondisk.UpdateApprovals(trust, func(a config.Approvals) (config.Approvals, error) {
		d := config.DecideTrust([]config.FileContent{{Path: project, Data: []byte(cfg)}}, &config.TrustPolicy{NeedApproval: map[string]bool{project: true}})
		return a.Approve(d[0], time.Now()), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	set := func(scope config.InputScope, value string) {
		t.Helper()
		if err := ondisk.UpdateInputs(store, scope, func(v map[string]string) { v["github-pat"] = value }); err != nil {
			t.Fatal(err)
		}
	}
	set(config.InputScope{}, "users-own-pat")
	set(config.ProjectInputScope(filepath.Join(dir, "projA")), "project-a-pat")

	f := newFleet(t, echoServers("gh"))
	var mu sync.Mutex
	var dialedWith []string
	dial := func(spec messages.ServerSpec) (mcp.Transport, error) {
		mu.Lock()
		dialedWith = append(dialedWith, spec.Args...)
		mu.Unlock()
		return f.dial(spec)
	}
	sup, rec := startWithDial(t, quartz.NewMock(t), dial, actors.Options{
		ConfigPaths: []string{project}, ApprovalRequired: []string{project}, TrustFile: trust, InputsFile: store,
	})
	_, waiting := rec.WaitState(ctx, 0, "gh", messages.StateNeedsInput)
	if want := "mcpvisor input set --project " + filepath.Join(dir, "projB") + " github-pat"; !strings.Contains(waiting.Reason, want) {
		t.Fatalf("reason %q lacks %q", waiting.Reason, want)
	}
	mark := rec.Len()
	set(config.ProjectInputScope(filepath.Join(dir, "projB")), "project-b-pat")
	reload(t, ctx, sup, rec)
	rec.WaitState(ctx, mark, "gh", messages.StateReady)
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(dialedWith, []string{"project-b-pat"}) {
		t.Fatalf("dialed with %q, want only the value stored for the project", dialedWith)
	}
}
