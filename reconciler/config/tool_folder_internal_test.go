package config

import "testing"

// The parent-of-a-tool's-folder rule, in one place: a project's inputs
// are the same for every tool's folder of the repository, while the
// workspace (${workspaceFolder}, relative envFiles) follows VS Code's
// rule, .vscode/ only. Every use agrees with its list.
func TestToolFolder_ProjectAndWorkspace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ path, project, workspace string }{
		{"/repo/.vscode/mcp.json", "/repo", "/repo"},
		{"/repo/.cursor/mcp.json", "/repo", "/repo/.cursor"},
		{"/repo/.gemini/settings.json", "/repo", "/repo/.gemini"},
		{"/repo/.mcp.json", "/repo", "/repo"},
		{"/repo/sub/../.vscode/mcp.json", "/repo", "/repo"},
	} {
		if got := InputProjectDir(c.path); got != c.project {
			t.Errorf("InputProjectDir(%s) = %s, want %s", c.path, got, c.project)
		}
		if got := defaultWorkspace(c.path); got != c.workspace {
			t.Errorf("defaultWorkspace(%s) = %s, want %s", c.path, got, c.workspace)
		}
		p := &fileParser{path: c.path}
		if got := p.workspace(); got != c.workspace {
			t.Errorf("workspace of %s = %s, want %s", c.path, got, c.workspace)
		}
		if got := envFileLabel(c.path, c.workspace+"/.env"); got != ".env" {
			t.Errorf("envFileLabel(%s) = %s, want .env", c.path, got)
		}
	}
}
