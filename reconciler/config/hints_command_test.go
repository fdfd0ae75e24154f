package config_test

import (
	"testing"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// check said "no errors" for a bare command that is not on PATH and for a
// relative command that resolves from one directory only (the demo's
// "bin/mcpvisor", from anywhere but the repository root). With
// LoadOptions.Commands the parser says where each command resolves, as
// the process transport resolves it: a bare one on the PATH its env sets,
// else mcpvisor's; a relative one against cwd, else against the working
// directory of whoever runs mcpvisor. The entries stay valid: installing
// the program fixes them without an edit.
func TestParseFile_CommandsThatWillNotBeFound(t *testing.T) {
	t.Parallel()
	executables := map[string]bool{
		"/usr/bin/node":          true,
		"/opt/tools/bin/srv":     true,
		"/repo/bin/mcpvisor":     true,
		"/repo/tools/server.sh":  true,
		"/proj/scripts/serve.sh": true,
	}
	opts := testOpts()
	opts.LookupEnv = envOf(map[string]string{"PATH": "/usr/local/bin:/usr/bin:.:"})
	opts.Commands = &config.CommandCheck{Executable: func(p string) bool { return executables[p] }, WorkingDir: "/repo"}
	src := `{"mcpServers": {
  "on-path":      {"command": "node"},
  "not-on-path":  {"command": "uvx"},
  "env-path":     {"command": "srv", "env": {"PATH": "/opt/tools/bin"}},
  "env-path-not": {"command": "node", "env": {"PATH": "/opt/tools/bin"}},
  "absolute":     {"command": "/usr/bin/node"},
  "absolute-not": {"command": "/usr/bin/nodejs"},
  "cwd":          {"command": "./scripts/serve.sh", "cwd": "."},
  "cwd-not":      {"command": "./serve.sh", "cwd": "tools"},
  "here-only":    {"command": "bin/mcpvisor"},
  "nowhere":      {"command": "./server.sh"},
  "remote":       {"url": "https://example.com/mcp"}
}}`
	got := config.ParseFile(testPath, []byte(src), opts)
	if len(got.Servers) != 11 {
		t.Fatalf("%d valid servers, want 11: %s", len(got.Servers), formatDiags(got.Diagnostics))
	}
	checkDiags(t, testPath, got.Diagnostics, []diag{
		{3, 31, messages.SeverityError, `server "not-on-path": command "uvx" is not found on PATH: install it, add its directory to PATH`},
		{5, 31, messages.SeverityError, `server "env-path-not": command "node" is not found on the PATH its env sets: install it, add its directory to env.PATH`},
		{7, 31, messages.SeverityError, `server "absolute-not": command "/usr/bin/nodejs" is not an executable file`},
		{9, 31, messages.SeverityError, `server "cwd-not": command "./serve.sh" does not resolve against cwd /proj/tools: /proj/tools/serve.sh is not an executable file`},
		{10, 31, messages.SeverityWarning, `server "here-only": command "bin/mcpvisor" is a relative path and the entry has no cwd, so it resolves against the working directory of whoever runs mcpvisor: from here it is /repo/bin/mcpvisor, from elsewhere it is not found; set "cwd": "../repo" (relative to this file's directory)`},
		{11, 31, messages.SeverityError, `server "nowhere": command "./server.sh" is a relative path and the entry has no cwd, so it resolves against the working directory of whoever runs mcpvisor, and from here /repo/server.sh is not an executable file`},
	})
}

// Without LoadOptions.Commands (the running supervisor), or without any
// PATH to look on, nothing is said about commands.
func TestParseFile_CommandsAreJudgedOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	src := `{"mcpServers": {"a": {"command": "uvx"}, "b": {"command": "bin/x"}}}`
	opts := testOpts()
	if got := config.ParseFile(testPath, []byte(src), opts); len(got.Diagnostics) != 0 {
		t.Errorf("without Commands: %s", formatDiags(got.Diagnostics))
	}
	opts.Commands = &config.CommandCheck{Executable: func(string) bool { return true }, WorkingDir: "/repo"}
	got := config.ParseFile(testPath, []byte(`{"mcpServers": {"a": {"command": "uvx"}}}`), opts)
	if len(got.Diagnostics) != 0 {
		t.Errorf("without a PATH: %s", formatDiags(got.Diagnostics))
	}
}

// A command that holds its arguments gets the warning that says so, not
// also "not found".
func TestParseFile_CommandWithSpacesIsNotAlsoNotFound(t *testing.T) {
	t.Parallel()
	opts := testOpts()
	opts.LookupEnv = envOf(map[string]string{"PATH": "/usr/bin"})
	opts.FileExists = func(string) bool { return false }
	opts.Commands = &config.CommandCheck{Executable: func(string) bool { return false }, WorkingDir: "/repo"}
	got := config.ParseFile(testPath, []byte(`{"mcpServers": {"a": {"command": "node index.js"}}}`), opts)
	checkDiags(t, testPath, got.Diagnostics, []diag{{1, 34, messages.SeverityWarning, "command contains spaces and names no file"}})
}

// LookPath finds what exec.LookPath finds: the first directory that holds
// the program, and nothing when that directory is relative (exec.ErrDot).
func TestLookPath_AsExecFindsIt(t *testing.T) {
	t.Parallel()
	exec := map[string]bool{"/b/x": true, "/c/x": true, "x": true, "rel/x": true}
	for _, tt := range []struct {
		list, want string
		ok         bool
	}{
		{"/a:/b:/c", "/b/x", true},
		{"/a:rel:/c", "rel/x", false},
		{"/a::/c", "x", false},
		{"/a:/c:.", "/c/x", true},
		{"/a", "", false},
	} {
		got, ok := config.LookPath("x", tt.list, func(p string) bool { return exec[p] })
		if got != tt.want || ok != tt.ok {
			t.Errorf("LookPath(x, %q) = %q, %v; want %q, %v", tt.list, got, ok, tt.want, tt.ok)
		}
	}
}
