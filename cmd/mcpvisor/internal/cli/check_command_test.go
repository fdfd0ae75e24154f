package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// check said "1 servers, no errors" for a bare command that is not on
// PATH and for a relative command that resolves from one directory only;
// both failed when the server started. Now each is an error at the
// command's file:line:column, naming the server and the fix, while a
// command that will be found passes: a bare one on the PATH its env sets
// (else check's own), a relative one against its cwd.
func TestCheck_CommandsThatWillNotBeFound(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools")
	if err := os.Mkdir(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, tools, "server.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(tools, "server.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	here, _ := os.Getwd()
	env := map[string]string{"PATH": filepath.Join(dir, "empty-bin")}
	tests := []struct {
		name, entry string
		code        int
		contains    []string
	}{
		{"bare, not on PATH", `{"command": "no-such-server-program"}`, 1, []string{
			":1:34: error: server \"s\": command \"no-such-server-program\" is not found on PATH: install it, add its directory to PATH"}},
		{"bare, on the PATH its env sets", `{"command": "server.sh", "env": {"PATH": "` + tools + `"}}`, 0, []string{"1 servers, no errors"}},
		{"bare, not on the PATH its env sets", `{"command": "sh", "env": {"PATH": "` + tools + `"}}`, 1, []string{
			`command "sh" is not found on the PATH its env sets: install it, add its directory to env.PATH`}},
		{"relative, resolves against cwd", `{"command": "./server.sh", "cwd": "tools"}`, 0, []string{"1 servers, no errors"}},
		{"relative, not under cwd", `{"command": "tools/server.sh", "cwd": "tools"}`, 1, []string{
			`command "tools/server.sh" does not resolve against cwd ` + tools + `: ` + filepath.Join(tools, "tools/server.sh") + ` is not an executable file`}},
		{"relative, no cwd", `{"command": "tools/server.sh"}`, 1, []string{
			`command "tools/server.sh" is a relative path and the entry has no cwd, so it resolves against the working directory of whoever runs mcpvisor, and from here ` +
				filepath.Join(here, "tools/server.sh") + ` is not an executable file; set cwd`}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := writeFile(t, dir, "c"+string(rune('0'+i))+".json", `{"mcpServers": {"s": `+tt.entry+`}}`)
			res := mcpvisor(ctx, env, "", "check", cfg)
			if res.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", res.code, tt.code, res.stdout, res.stderr)
			}
			for _, c := range tt.contains {
				if !strings.Contains(res.stdout, c) {
					t.Errorf("stdout %q lacks %q", res.stdout, c)
				}
			}
		})
	}
}
