package config

import "path/filepath"

// Discovery: the MCP config files the tools people use keep for them, in
// the precedence mcpvisor reads them with (`--discover`). Project files
// come first, as each tool lets a project's file override the user's; a
// project file comes with whatever repository the working directory is
// in, so it runs only once approved (trust). This is a table: which files
// exist is the caller's question.

// Scope says whose a discovered file is.
type Scope string

const (
	// ScopeProject files live in the working directory and need approval.
	ScopeProject Scope = "project"
	// ScopeUser files are the user's own.
	ScopeUser Scope = "user"
)

// Candidate is one file a tool may keep its MCP servers in.
type Candidate struct {
	Path  string // absolute
	Tool  string // who writes it
	Scope Scope
}

// DiscoveryCandidates lists, in precedence order, the files that tools
// keep MCP servers in, for a working directory, a home directory and the
// XDG config directory ("" means ~/.config). Paths are Linux's; macOS
// tools keep theirs under ~/Library/Application Support, which is listed
// too.
func DiscoveryCandidates(workdir, home, xdgConfig string) []Candidate {
	if xdgConfig == "" {
		xdgConfig = filepath.Join(home, ".config")
	}
	mac := filepath.Join(home, "Library", "Application Support")
	p := func(rel string) string { return filepath.Join(workdir, rel) }
	h := func(rel string) string { return filepath.Join(home, rel) }
	out := []Candidate{
		{p(".mcp.json"), "Claude Code", ScopeProject},
		{p(filepath.Join(".vscode", "mcp.json")), "VS Code", ScopeProject},
		{p(filepath.Join(".cursor", "mcp.json")), "Cursor", ScopeProject},
		{p(filepath.Join(".gemini", "settings.json")), "Gemini CLI", ScopeProject},
		{h(".claude.json"), "Claude Code", ScopeUser},
		{filepath.Join(xdgConfig, "Claude", "claude_desktop_config.json"), "Claude Desktop", ScopeUser},
		{filepath.Join(mac, "Claude", "claude_desktop_config.json"), "Claude Desktop", ScopeUser},
		{h(filepath.Join(".cursor", "mcp.json")), "Cursor", ScopeUser},
		{filepath.Join(xdgConfig, "Code", "User", "mcp.json"), "VS Code", ScopeUser},
		{filepath.Join(mac, "Code", "User", "mcp.json"), "VS Code", ScopeUser},
		{h(filepath.Join(".codeium", "windsurf", "mcp_config.json")), "Windsurf", ScopeUser},
		{filepath.Join(xdgConfig, "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json"), "Cline", ScopeUser},
		{filepath.Join(mac, "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json"), "Cline", ScopeUser},
		{filepath.Join(xdgConfig, "Code", "User", "globalStorage", "rooveterinaryinc.roo-cline", "settings", "mcp_settings.json"), "Roo Code", ScopeUser},
		{filepath.Join(mac, "Code", "User", "globalStorage", "rooveterinaryinc.roo-cline", "settings", "mcp_settings.json"), "Roo Code", ScopeUser},
		{h(filepath.Join(".gemini", "settings.json")), "Gemini CLI", ScopeUser},
	}
	// A project directory that is the home directory: its files are the
	// user's own (~/.cursor/mcp.json, ~/.gemini/settings.json), listed once.
	seen := map[string]bool{}
	kept := out[:0]
	for _, c := range out {
		if seen[c.Path] {
			continue
		}
		seen[c.Path] = true
		if c.Scope == ScopeProject && filepath.Clean(workdir) == filepath.Clean(home) {
			c.Scope = ScopeUser
		}
		kept = append(kept, c)
	}
	return kept
}
