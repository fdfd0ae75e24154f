package config_test

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// envProject is a project file whose approved entry reads .env beside it.
const envProject = `{"mcpServers": {
  "node": {"command": "node", "args": ["server.js"], "envFile": ".env"},
  "plain": {"command": "srv"}
}}`

// envFiles is a fake file system for envFiles: path → content; absent
// paths do not exist.
type envFiles map[string]string

func (f envFiles) read(path string) ([]byte, error) {
	data, ok := f[path]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return []byte(data), nil
}

func (f envFiles) opts(a config.Approvals) config.LoadOptions {
	return config.LoadOptions{ReadFile: f.read, Trust: projectPolicy(a)}
}

// approveReading approves data as trustProject the way `mcpvisor trust`
// does: every entry and what its envFile holds now.
func approveReading(t *testing.T, a config.Approvals, data string, files envFiles) config.Approvals {
	t.Helper()
	d := config.DecideTrust([]config.FileContent{content(trustProject, data)}, projectPolicy(a))
	if !d[0].Parsed {
		t.Fatalf("approved content does not parse: %s", data)
	}
	d[0].EnvFiles = config.EnvFilesRead(trustProject, []byte(data), config.LoadOptions{ReadFile: files.read})
	return a.Approve(d[0], approvedAt)
}

// loadProject loads envProject under a and reports the servers that would
// run and the untrusted entries with their reasons.
func loadProject(a config.Approvals, files envFiles) (config.Loaded, map[string]string) {
	cfg, _ := config.Load([]config.FileContent{content(trustProject, envProject)}, files.opts(a), nil)
	untrusted := map[string]string{}
	for _, inv := range cfg.Invalid {
		if inv.State == messages.StateUntrusted {
			untrusted[inv.Name] = inv.Reason
		}
	}
	return cfg, untrusted
}

// The incident (T2): an entry approved with "envFile": ".env" ran with
// whatever .env held later: a `git pull` that set
// NODE_OPTIONS=--require ./evil.js ran the repository's code. Now the
// approval records .env's hash: the changed .env makes the entry
// untrusted, none of its values reaches a spec, its sibling runs on, and
// approving again records the new content.
func TestLoad_ChangedEnvFileUntrustsTheApprovedEntry(t *testing.T) {
	t.Parallel()
	files := envFiles{"/proj/.env": "PORT=8080\n"}
	a := approveReading(t, config.Approvals{}, envProject, files)
	if got := a.Files[trustProject].EnvFiles["node"]["/proj/.env"]; got != config.ContentHash([]byte("PORT=8080\n")) {
		t.Fatalf("recorded envFiles = %+v", a.Files[trustProject].EnvFiles)
	}
	if back, err := config.ParseApprovals(a.Marshal()); err != nil || !cmp.Equal(a, back) {
		t.Fatalf("the store does not keep the envFiles: %v\n%s", err, cmp.Diff(a, back))
	}
	cfg, untrusted := loadProject(a, files)
	if len(cfg.Servers) != 2 || len(untrusted) != 0 {
		t.Fatalf("as approved: servers = %+v, untrusted = %v", cfg.Servers, untrusted)
	}

	files["/proj/.env"] = "NODE_OPTIONS=--require ./evil.js\n"
	cfg, untrusted = loadProject(a, files)
	if len(cfg.Servers) != 1 || cfg.Servers[0].Name != "plain" {
		t.Fatalf("after the pull: servers = %+v", cfg.Servers)
	}
	if !strings.Contains(untrusted["node"], "untrusted: changed since approval: envFile .env; nothing runs until you review and approve it: mcpvisor trust "+trustProject) {
		t.Fatalf("after the pull: untrusted = %v", untrusted)
	}
	for _, s := range cfg.Servers {
		if _, ok := s.Env["NODE_OPTIONS"]; ok {
			t.Fatalf("the new value reached %+v", s)
		}
	}
	var warned bool
	for _, d := range cfg.Diagnostics {
		warned = warned || d.Severity == messages.SeverityWarning && strings.Contains(d.Message, `server "node" is untrusted: changed since approval: envFile .env`)
	}
	if !warned {
		t.Fatalf("diagnostics = %+v", cfg.Diagnostics)
	}

	a = approveReading(t, a, envProject, files)
	cfg, untrusted = loadProject(a, files)
	if len(cfg.Servers) != 2 || len(untrusted) != 0 || cfg.Servers[0].Env["NODE_OPTIONS"] != "--require ./evil.js" {
		t.Fatalf("approved again: servers = %+v, untrusted = %v", cfg.Servers, untrusted)
	}
}

// An envFile that was there at approval and is gone, or one that was not
// there and appeared, is a change too: either way the server would run
// with an environment nobody approved.
func TestLoad_EnvFileRemovedOrAddedSinceApprovalIsAChange(t *testing.T) {
	t.Parallel()
	present := envFiles{"/proj/.env": "PORT=8080\n"}
	_, untrusted := loadProject(approveReading(t, config.Approvals{}, envProject, present), envFiles{})
	if untrusted["node"] == "" || !strings.Contains(untrusted["node"], "changed since approval: envFile .env") {
		t.Fatalf("removed: untrusted = %v", untrusted)
	}
	_, untrusted = loadProject(approveReading(t, config.Approvals{}, envProject, envFiles{}), present)
	if !strings.Contains(untrusted["node"], "changed since approval: envFile .env") {
		t.Fatalf("added: untrusted = %v", untrusted)
	}
	cfg, untrusted := loadProject(approveReading(t, config.Approvals{}, envProject, envFiles{}), envFiles{})
	if len(untrusted) != 0 || len(cfg.Servers) != 1 {
		t.Fatalf("absent then and now: servers = %+v, untrusted = %v (the entry is invalid, not untrusted)", cfg.Servers, untrusted)
	}
}

// A store written before envFiles were recorded (version 1) is read; an
// entry it approved that names an envFile counts as changed (its envFile
// was never approved), the others run as approved.
func TestLoad_Version1ApprovalTreatsEnvFilesAsChanged(t *testing.T) {
	t.Parallel()
	files := envFiles{"/proj/.env": "PORT=8080\n"}
	v2 := approveReading(t, config.Approvals{}, envProject, files)
	rec := v2.Files[trustProject]
	old := `{"version": 1, "files": {"` + trustProject + `": {"sha256": "` + rec.SHA256 + `", "entries": {"node": "` + rec.Entries["node"] +
		`", "plain": "` + rec.Entries["plain"] + `"}, "approvedAt": "2026-01-01T00:00:00Z"}}}`
	a, err := config.ParseApprovals([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	cfg, untrusted := loadProject(a, files)
	if len(cfg.Servers) != 1 || cfg.Servers[0].Name != "plain" || !strings.Contains(untrusted["node"], "changed since approval: envFile .env") {
		t.Fatalf("servers = %+v, untrusted = %v", cfg.Servers, untrusted)
	}
	if !strings.Contains(string(v2.Marshal()), `"version": 2`) {
		t.Fatalf("written store:\n%s", v2.Marshal())
	}
}

// A file kept by the last-good rule keeps what it read then: once the
// approval records another envFile content, its entry stops too.
func TestLoad_LastGoodRechecksEnvFiles(t *testing.T) {
	t.Parallel()
	files := envFiles{"/proj/.env": "PORT=8080\n"}
	a := approveReading(t, config.Approvals{}, envProject, files)
	_, lastGood := config.Load([]config.FileContent{content(trustProject, envProject)}, files.opts(a), nil)
	files["/proj/.env"] = "PORT=9090\n"
	a = approveReading(t, a, envProject, files)
	broken := []config.FileContent{content(trustProject, `{"mcpServers": {`)}
	cfg, _ := config.Load(broken, files.opts(a), lastGood)
	var got []string
	for _, inv := range cfg.Invalid {
		got = append(got, inv.Name+": "+string(inv.EntryState()))
	}
	if diff := cmp.Diff([]string{"node: untrusted"}, got); diff != "" || len(cfg.Servers) != 1 {
		t.Fatalf("servers = %+v, invalid (-want +got):\n%s", cfg.Servers, diff)
	}
}

// What `mcpvisor trust` shows and --list says: JudgeEnvFiles makes an
// entry unchanged as written but with a changed envFile untrusted, and
// the file not approved, as Load would.
func TestJudgeEnvFiles_ReportsTheChangedEnvFile(t *testing.T) {
	t.Parallel()
	files := envFiles{"/proj/.env": "A=1\n"}
	a := approveReading(t, config.Approvals{}, envProject, files)
	policy := projectPolicy(a)
	decide := func() config.FileTrust {
		d := config.DecideTrust([]config.FileContent{content(trustProject, envProject)}, policy)[0]
		policy.JudgeEnvFiles(&d, []byte(envProject), config.LoadOptions{ReadFile: files.read})
		return d
	}
	if d := decide(); !d.Approved || d.Untrusted() != 0 {
		t.Fatalf("as approved: %+v", d)
	}
	files["/proj/.env"] = "A=2\n"
	d := decide()
	want := []string{"!node (changed since approval: envFile .env)", "plain"}
	if diff := cmp.Diff(want, trustedNames([]config.FileTrust{d})); diff != "" || d.Approved {
		t.Fatalf("approved %v, entries (-want +got):\n%s", d.Approved, diff)
	}
}

// What `mcpvisor trust` reads of an envFile it records reads the inputs
// of the file's project, as run will, never the user's own: a project
// entry with "envFile": "/x/${input:github-pat}" would otherwise expand
// the user's token into a path that mcpvisor opens and the trust store
// keeps.
func TestEnvFilesRead_ReadsTheProjectsInputsNotTheUsers(t *testing.T) {
	t.Parallel()
	const path = "/proj/.vscode/mcp.json"
	const data = `{"inputs": [{"id": "github-pat", "type": "promptString", "password": true}],
  "servers": {"leak": {"command": "srv", "envFile": "/x/${input:github-pat}"}}}`
	files := envFiles{"/x/user-token-value": "A=1", "/x/project-value": "A=2"}
	read := func(store config.InputStore) map[string]map[string]string {
		return config.EnvFilesRead(path, []byte(data), config.LoadOptions{ReadFile: files.read, Inputs: store})
	}
	if got := read(config.InputStore{User: map[string]string{"github-pat": "user-token-value"}}); strings.Contains(fmt.Sprint(got), "user-token-value") {
		t.Fatalf("the user's own input was expanded into the project's envFile: %v", got)
	}
	project := config.InputStore{Projects: map[string]map[string]string{"/proj": {"github-pat": "project-value"}}}
	if got := read(project); !strings.Contains(fmt.Sprint(got), "/x/project-value") {
		t.Fatalf("the project's own input was not read: %v", got)
	}
}
