package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// The config files mcpvisor reads when none is named, in precedence order,
// and whose they are. A project file comes with whatever repository the
// working directory is in, so it runs only once the user approved it
// (`mcpvisor trust`); a user file is the user's own.
var (
	projectDefaults = []string{".mcp.json"}
	userDefaults    = []string{"~/.mcp.json"}
)

// defaultConfigPaths: $MCPVISOR_CONFIG (comma-separated), which names the
// files (named is true: they are trusted), else the project defaults then
// the user defaults.
func defaultConfigPaths(lookup func(string) (string, bool)) (paths []string, named bool) {
	if v, _ := lookup("MCPVISOR_CONFIG"); v != "" {
		var out []string
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, true
	}
	return slices.Concat(projectDefaults, userDefaults), false
}

// projectPaths resolves which of the default paths are project files: the
// project defaults, except one that is also a user file (mcpvisor started
// in the home directory reads ~/.mcp.json as the user's own).
func projectPaths(defaults []string, workdir, home string) []string {
	user := config.ResolvePaths(userDefaults, workdir, home)
	var out []string
	for _, p := range config.ResolvePaths(defaults, workdir, home) {
		if slices.Contains(config.ResolvePaths(projectDefaults, workdir, home), p) && !slices.Contains(user, p) {
			out = append(out, p)
		}
	}
	return out
}

// userConfigPaths are the user's own config files that run, serve or
// --discover may read along with a project file (the user defaults, the
// files $MCPVISOR_CONFIG names, the user files of --discover), other than
// the files being approved: an approved project entry replaces a server
// of the same name in them, which the trust preview says.
func userConfigPaths(workdir string, lookup func(string) (string, bool), approving []string) []string {
	home := homeDir(lookup)
	xdg := ""
	if x, ok := lookup("XDG_CONFIG_HOME"); ok && filepath.IsAbs(x) {
		xdg = x
	}
	paths := config.ResolvePaths(userDefaults, workdir, home)
	if named, ok := defaultConfigPaths(lookup); ok {
		paths = append(paths, config.ResolvePaths(named, workdir, home)...)
	}
	for _, c := range config.DiscoveryCandidates(workdir, home, xdg) {
		if c.Scope == config.ScopeUser {
			paths = append(paths, c.Path)
		}
	}
	var out []string
	for _, p := range paths {
		if !slices.Contains(approving, p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// homeDir is $HOME, else the user's home directory as the OS knows it.
func homeDir(lookup func(string) (string, bool)) string {
	if lookup != nil {
		if h, ok := lookup("HOME"); ok && h != "" {
			return h
		}
	}
	h, _ := os.UserHomeDir()
	return h
}

// inputStorePath is where VS Code input values live: inputs.json next to
// the trust store.
func inputStorePath(lookup func(string) (string, bool)) string {
	return filepath.Join(filepath.Dir(trustStorePath(lookup)), "inputs.json")
}

// trustStorePath is where approvals live: $XDG_CONFIG_HOME/mcpvisor/
// trust.json, else ~/.config/mcpvisor/trust.json. A relative
// XDG_CONFIG_HOME is ignored, as the XDG spec says.
func trustStorePath(lookup func(string) (string, bool)) string {
	if lookup != nil {
		if x, ok := lookup("XDG_CONFIG_HOME"); ok && filepath.IsAbs(x) {
			return filepath.Join(x, "mcpvisor", "trust.json")
		}
	}
	return filepath.Join(homeDir(lookup), ".config", "mcpvisor", "trust.json")
}
