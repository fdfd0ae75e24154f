package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
)

// The input store holds the values of VS Code inputs that `mcpvisor input
// set` stored, each for a scope: which config files may read it. A value
// stored for one project must not reach another project's file (a
// repository's .vscode/mcp.json asking for ${input:github-pat} would get
// the token the user stored for a different one), nor one stored for the
// user's own files reach any project file, unless the user says so:
//
//   - the user's scope (`mcpvisor input set ID`): the user's own files,
//     those that need no approval (user-scoped files, and the files named
//     with --config or $MCPVISOR_CONFIG);
//   - a project's scope (`mcpvisor input set --project DIR ID`): the
//     project files of DIR, those that run only once approved;
//   - the shared scope (`mcpvisor input set --all-projects ID`): every
//     file, every project's included, for a value the user would give to
//     any repository they open.
//
// A file reads its own scope first, then the shared one. This file only
// encodes and decodes the store and answers lookups: the actors and the
// CLI do the I/O.

// InputScope names whose stored values a config file reads, or which
// files a stored value is for. The zero value is the user's scope.
type InputScope struct {
	// Project is the project directory (absolute, clean) of a project's
	// scope; "" otherwise.
	Project string
	// Shared is the scope every file reads.
	Shared bool
}

// ProjectInputScope is the scope of the project in dir.
func ProjectInputScope(dir string) InputScope {
	return InputScope{Project: filepath.Clean(dir)}
}

// InputScopeOf is the scope a config file reads: its project's when the
// file needs approval (see TrustPolicy), else the user's.
func InputScopeOf(path string, trust *TrustPolicy) InputScope {
	if !trust.needsApproval(path) {
		return InputScope{}
	}
	return ProjectInputScope(InputProjectDir(path))
}

// InputProjectDir is the project directory of a project file: the folder
// that holds it, or, for a file in a tool's folder (.vscode/mcp.json,
// .cursor/mcp.json, .gemini/settings.json), the folder that holds that.
func InputProjectDir(path string) string { return folderAbove(path, projectFolders) }

// SetFlag is the `mcpvisor input set` flag that stores a value in the
// scope ("" for the user's).
func (s InputScope) SetFlag() string {
	switch {
	case s.Shared:
		return "--all-projects "
	case s.Project != "":
		return "--project " + ShellQuote(s.Project) + " "
	}
	return ""
}

// String says whose the scope is, for messages.
func (s InputScope) String() string {
	switch {
	case s.Shared:
		return "every config file"
	case s.Project != "":
		return "project " + s.Project
	}
	return "your own config files"
}

// InputStore is the content of the input store.
type InputStore struct {
	// User holds the values of the user's scope; Shared those every file
	// reads; Projects those of each project, by directory.
	User, Shared map[string]string
	Projects     map[string]map[string]string
}

// Lookup answers ${input:id} for a file that reads scope: its own
// values, then the shared ones.
func (s InputStore) Lookup(scope InputScope, id string) (string, bool) {
	if v, ok := s.values(scope)[id]; ok {
		return v, true
	}
	v, ok := s.Shared[id]
	return v, ok
}

// values is the map of one scope; nil when it has none.
func (s InputStore) values(scope InputScope) map[string]string {
	switch {
	case scope.Shared:
		return s.Shared
	case scope.Project != "":
		return s.Projects[filepath.Clean(scope.Project)]
	}
	return s.User
}

// Values is the map of one scope, created if needed, for a writer to
// change.
func (s *InputStore) Values(scope InputScope) map[string]string {
	switch {
	case scope.Shared:
		if s.Shared == nil {
			s.Shared = map[string]string{}
		}
		return s.Shared
	case scope.Project != "":
		dir := filepath.Clean(scope.Project)
		if s.Projects == nil {
			s.Projects = map[string]map[string]string{}
		}
		if s.Projects[dir] == nil {
			s.Projects[dir] = map[string]string{}
		}
		return s.Projects[dir]
	}
	if s.User == nil {
		s.User = map[string]string{}
	}
	return s.User
}

// IDs lists the ids that scope has values for, sorted; never the values.
func (s InputStore) IDs(scope InputScope) []string {
	return slices.Sorted(maps.Keys(s.values(scope)))
}

// ProjectDirs lists the projects that have values, sorted.
func (s InputStore) ProjectDirs() []string {
	var dirs []string
	for dir, vals := range s.Projects {
		if len(vals) > 0 {
			dirs = append(dirs, dir)
		}
	}
	slices.Sort(dirs)
	return dirs
}

// inputStoreVersion is the store's format version. Version 1 had one map,
// "inputs", which version 2 reads as the user's scope: values stored
// before scopes existed stay with the user's own files and reach no
// project file until stored for it.
const inputStoreVersion = 2

type inputStoreFile struct {
	Version  int                          `json:"version"`
	Inputs   map[string]string            `json:"inputs"`
	Shared   map[string]string            `json:"shared,omitempty"`
	Projects map[string]map[string]string `json:"projects,omitempty"`
}

// ParseInputStore decodes an input store. Empty data is an empty store.
// Errors never quote the data: it holds secrets.
func ParseInputStore(data []byte) (InputStore, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return InputStore{}, nil
	}
	var f inputStoreFile
	if err := json.Unmarshal(data, &f); err != nil {
		return InputStore{}, fmt.Errorf("is not valid JSON of the input store")
	}
	switch f.Version {
	case 1:
		if f.Shared != nil || f.Projects != nil {
			return InputStore{}, fmt.Errorf("has version 1 but scopes of version 2")
		}
	case inputStoreVersion:
	default:
		return InputStore{}, fmt.Errorf("has version %d; this mcpvisor reads versions 1 and %d", f.Version, inputStoreVersion)
	}
	s := InputStore{User: f.Inputs, Shared: f.Shared, Projects: map[string]map[string]string{}}
	for dir, vals := range f.Projects {
		if !filepath.IsAbs(dir) {
			return InputStore{}, fmt.Errorf("has a project %q that is not an absolute path", dir)
		}
		s.Projects[filepath.Clean(dir)] = vals
	}
	return s, nil
}

// Marshal encodes the store (always the current version), indented, with
// a trailing newline.
func (s InputStore) Marshal() []byte {
	f := inputStoreFile{Version: inputStoreVersion, Inputs: s.User, Shared: s.Shared}
	if f.Inputs == nil {
		f.Inputs = map[string]string{}
	}
	for dir, vals := range s.Projects {
		if len(vals) == 0 {
			continue
		}
		if f.Projects == nil {
			f.Projects = map[string]map[string]string{}
		}
		f.Projects[dir] = vals
	}
	if len(f.Shared) == 0 {
		f.Shared = nil
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		panic(err) // maps of strings always encode
	}
	return append(data, '\n')
}
