package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// approvedPolicy is a trust policy under which the given project files
// need approval and are approved as they are.
func approvedPolicy(t *testing.T, files ...config.FileContent) *config.TrustPolicy {
	t.Helper()
	p := &config.TrustPolicy{NeedApproval: map[string]bool{}}
	for _, f := range files {
		p.NeedApproval[f.Path] = true
	}
	for _, d := range config.DecideTrust(files, p) {
		p.Approvals = p.Approvals.Approve(d, time.Unix(0, 0))
	}
	return p
}

// T1: a header `Bearer ${input:github-pat}` in an approved project file
// sent the input the user had stored for another project: the store was
// keyed by id alone. A project file now reads only the values stored for
// its project and the shared ones; the user's own values stay with the
// user's own files, and the reason says how to store one for the project.
func TestParseFile_ProjectFileReadsOnlyItsProjectsInputs(t *testing.T) {
	t.Parallel()
	const entry = `{"inputs": [{"type": "promptString", "id": "github-pat", "password": true}],
	  "servers": {"gh": {"url": "https://h.example/mcp", "headers": {"Authorization": "Bearer ${input:github-pat}"}}}}`
	projA, projB := content("/projA/.vscode/mcp.json", entry), content("/projB/.vscode/mcp.json", entry)
	user := content("/home/ada/.config/Code/User/mcp.json", entry)
	store := config.InputStore{
		User:     map[string]string{"github-pat": "user-pat-value-1"},
		Projects: map[string]map[string]string{"/projA": {"github-pat": "project-a-pat-2"}},
	}
	opts := testOpts()
	opts.Inputs, opts.Trust = store, approvedPolicy(t, projA, projB)
	header := func(f config.FileContent) (string, messages.InvalidServer) {
		got := config.ParseFile(f.Path, f.Data, opts)
		if len(got.Servers) == 1 {
			return got.Servers[0].Headers["Authorization"], messages.InvalidServer{}
		}
		if len(got.Invalid) != 1 {
			t.Fatalf("%s: %s", f.Path, formatDiags(got.Diagnostics))
		}
		return "", got.Invalid[0]
	}
	if got, _ := header(projA); got != "Bearer project-a-pat-2" {
		t.Errorf("project A sends %q", got)
	}
	if got, _ := header(user); got != "Bearer user-pat-value-1" {
		t.Errorf("the user's file sends %q", got)
	}
	got, waiting := header(projB)
	if got != "" || waiting.EntryState() != messages.StateNeedsInput {
		t.Fatalf("project B sends %q (state %s): another scope's value", got, waiting.EntryState())
	}
	for _, want := range []string{"mcpvisor input set --project /projB github-pat", "the value stored for your own config files is not given to project files"} {
		if !strings.Contains(waiting.Reason, want) {
			t.Errorf("reason %q lacks %q", waiting.Reason, want)
		}
	}
	// Shared on purpose (input set --all-projects): every file reads it,
	// its own scope first.
	opts.Inputs.Shared = map[string]string{"github-pat": "shared-pat-3"}
	if got, _ := header(projB); got != "Bearer shared-pat-3" {
		t.Errorf("project B with a shared value sends %q", got)
	}
	if got, _ := header(projA); got != "Bearer project-a-pat-2" {
		t.Errorf("project A with a shared value sends %q", got)
	}
}

// A store of version 1 (ids alone) is read as the user's scope; writing
// gives version 2; errors never quote the content.
func TestParseInputStore_Versions(t *testing.T) {
	t.Parallel()
	old, err := config.ParseInputStore([]byte(`{"version": 1, "inputs": {"tok": "v1-value"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := old.Lookup(config.InputScope{}, "tok"); !ok || v != "v1-value" {
		t.Errorf("user scope: %q %v", v, ok)
	}
	if _, ok := old.Lookup(config.ProjectInputScope("/p"), "tok"); ok {
		t.Error("a version 1 value reaches a project file")
	}
	s := old
	s.Values(config.ProjectInputScope("/p/"))["tok"] = "p-value"
	s.Values(config.InputScope{Shared: true})["all"] = "shared-value"
	back, err := config.ParseInputStore(s.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(s.Marshal()), `"version": 2`) {
		t.Errorf("marshalled:\n%s", s.Marshal())
	}
	for _, bad := range []string{`{"version": 3, "inputs": {}}`, `{"version": 2, "projects": {"rel": {"k": "secret-value-9"}}}`, `{"inputs": "secret-value-9"`} {
		_, err := config.ParseInputStore([]byte(bad))
		if err == nil || strings.Contains(err.Error(), "secret-value-9") {
			t.Errorf("%s: error %v", bad, err)
		}
	}
}

// A project file's inputs are its project's: the folder of .mcp.json, or
// the folder that holds a tool's folder.
func TestInputProjectDir(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/p/.mcp.json": "/p", "/p/.vscode/mcp.json": "/p", "/p/.cursor/mcp.json": "/p", "/p/.gemini/settings.json": "/p", "/p/sub/x.json": "/p/sub",
	} {
		if got := config.InputProjectDir(in); got != want {
			t.Errorf("InputProjectDir(%q) = %q, want %q", in, got, want)
		}
	}
}
