package cli

import (
	"os"
	"path/filepath"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// discoverableProjectFiles are the project files discovery looks for
// (config.DiscoveryCandidates), for messages.
var discoverableProjectFiles = []string{".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json", ".gemini/settings.json"}

// discovered are the config files --discover found, in precedence order,
// and which of them are project files (they need approval).
type discovered struct {
	paths, project []string
	tools          map[string]string // path → the tool that writes it
}

// discoverFiles lists the discovery candidates that exist as regular
// files.
func discoverFiles(workdir string, lookup func(string) (string, bool)) discovered {
	xdg := ""
	if x, ok := lookup("XDG_CONFIG_HOME"); ok && filepath.IsAbs(x) {
		xdg = x
	}
	d := discovered{tools: map[string]string{}}
	for _, c := range config.DiscoveryCandidates(workdir, homeDir(lookup), xdg) {
		if info, err := os.Stat(c.Path); err != nil || !info.Mode().IsRegular() {
			continue
		}
		d.paths = append(d.paths, c.Path)
		d.tools[c.Path] = c.Tool
		if c.Scope == config.ScopeProject {
			d.project = append(d.project, c.Path)
		}
	}
	return d
}
