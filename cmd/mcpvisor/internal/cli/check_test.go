package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// check prints file:line:col: severity: message for every diagnostic and
// exits 1 on errors, 0 otherwise, 2 without files; it starts nothing.
func TestCheck_DiagnosticsAndExitCodes(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	good := writeFile(t, dir, "good.json", `{"mcpServers": {"a": {"command": "/bin/sh", "args": ["-c", "touch `+marker+`"]}}}`)
	warn := writeFile(t, dir, "warn.json", `{"mcpServers": {"a": {"command": "srv", "autoApprov": []}}}`)
	bad := writeFile(t, dir, "bad.json", "{\n  \"servers\": {\n    \"b\": {\"command\": \"${MISSING_VAR}\"}\n  }\n}")

	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{name: "no files", args: []string{"check"}, code: 2},
		{name: "valid", args: []string{"check", good}, code: 0, contains: []string{"1 servers, no errors"}},
		{name: "warning only", args: []string{"check", warn}, code: 0, contains: []string{warn + ":1:", ": warning: ", "autoApprov"}},
		{name: "error", args: []string{"check", good, bad}, code: 1, contains: []string{bad + ":3:", ": error: ", "MISSING_VAR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mcpvisor(ctx, map[string]string{}, "", tt.args...)
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
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("check started a server")
	}
}

func TestCheck_JSON(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.json", `{"mcpServers": {"x": {"command": "srv", "prefix": "a__b"}}}`)
	res := mcpvisor(ctx, map[string]string{}, "", "check", "--json", bad)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1: %s %s", res.code, res.stdout, res.stderr)
	}
	var out struct {
		Diagnostics []messages.Diagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, res.stdout)
	}
	if len(out.Diagnostics) == 0 || out.Diagnostics[0].Path != bad || out.Diagnostics[0].Line != 1 || out.Diagnostics[0].Severity != messages.SeverityError {
		t.Fatalf("diagnostics = %+v", out.Diagnostics)
	}
	empty := mcpvisor(ctx, map[string]string{}, "", "check", "--json", writeFile(t, dir, "ok.json", `{"servers": {}}`))
	if empty.code != 0 || !strings.Contains(empty.stdout, `"diagnostics": []`) {
		t.Fatalf("clean file: exit %d, %s", empty.code, empty.stdout)
	}
}
