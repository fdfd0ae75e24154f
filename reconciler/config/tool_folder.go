package config

import (
	"path/filepath"
	"slices"
)

// A config file in a tool's folder (.vscode/mcp.json) belongs to the
// folder that holds that one: that is the workspace the tool opened, and
// the project the file is part of. Two lists, because the two uses differ:
//
//   - workspaceFolders: where VS Code's ${workspaceFolder} and a relative
//     envFile resolve (fileParser.workspace, defaultWorkspace,
//     envFileLabel). VS Code's rule, .vscode/ only: a .cursor/mcp.json's
//     relative envFile resolves in .cursor/, as it always has;
//   - projectFolders: whose inputs a project file reads (InputProjectDir):
//     every tool's folder that holds a project's MCP config, so that
//     .vscode/mcp.json, .cursor/mcp.json and .gemini/settings.json of one
//     repository read the same project's inputs.
var (
	workspaceFolders = []string{".vscode"}
	projectFolders   = []string{".vscode", ".cursor", ".gemini"}
)

// folderAbove is the folder that holds path, or, when that is one of
// tools (a tool's folder), the folder that holds it.
func folderAbove(path string, tools []string) string {
	dir := filepath.Dir(filepath.Clean(path))
	if slices.Contains(tools, filepath.Base(dir)) {
		return filepath.Dir(dir)
	}
	return dir
}

// defaultWorkspace is the workspace folder of the config file at path
// when no --workspace is given (LoadOptions.Workspace): where
// ${workspaceFolder} and a relative envFile resolve.
func defaultWorkspace(path string) string { return folderAbove(path, workspaceFolders) }
