package config

import (
	"bytes"
	"path/filepath"
)

// DeclaredNames lists the servers a config file declares, in file order,
// as ParseFile finds them (with ~/.claude.json's servers of projectDir)
// without parsing a single entry: no variable is looked up. ok is false
// when the file as a whole is not usable.
func DeclaredNames(path string, data []byte, projectDir string) (names []string, ok bool) {
	p := &fileParser{path: path, opts: LoadOptions{ProjectDir: projectDir}, dialect: dialectOf(path), namesOnly: true}
	if bytes.HasPrefix(data, utf8BOM) {
		data = append([]byte("   "), data[len(utf8BOM):]...)
	}
	p.lines = newLineIndex(path, data)
	if !p.parse(data) {
		return nil, false
	}
	return p.names, true
}

// userServers maps each server name declared in opts.Others, other than
// path itself, to the declarations an approved entry of path with that
// name would replace: project files come first in every list mcpvisor
// reads (see Load: the first file to declare a name wins).
func userServers(path string, opts PreviewOptions) map[string][]ServerRef {
	out := map[string][]ServerRef{}
	for _, f := range opts.Others {
		if f.Missing || f.ReadErr != nil || filepath.Clean(f.Path) == filepath.Clean(path) {
			continue
		}
		names, _ := DeclaredNames(f.Path, f.Data, opts.ProjectDir)
		seen := map[string]bool{}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out[n] = append(out[n], ServerRef{Name: n, Path: f.Path})
			}
		}
	}
	return out
}
