package config

import (
	"fmt"
	"path/filepath"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Claude Code's ~/.claude.json keeps, besides the user's servers under
// "mcpServers", servers of "local" scope per project:
//
//	"projects": {"/home/ada/proj": {"mcpServers": {"db": {…}}}}
//
// Claude Code gives a project's local servers precedence over the user's;
// so does mcpvisor, for LoadOptions.ProjectDir. The file is the user's own
// (Claude Code writes it for `claude mcp add`), so these are trusted like
// the rest of it.

// projectServers keeps the declarations of LoadOptions.ProjectDir's
// servers in the "projects" object.
func (p *fileParser) projectServers(v *hujson.Value) {
	dir := p.opts.ProjectDir
	obj, ok := v.Value.(*hujson.Object)
	if dir == "" || !ok {
		return
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		if filepath.Clean(decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset).value) != filepath.Clean(dir) {
			continue
		}
		proj, ok := m.Value.Value.(*hujson.Object)
		if !ok {
			return
		}
		for j := range proj.Members {
			pm := &proj.Members[j]
			if decodeString(pm.Name.Value.(hujson.Literal), pm.Name.StartOffset).value != "mcpServers" {
				continue
			}
			if servers, ok := pm.Value.Value.(*hujson.Object); ok {
				for k := range servers.Members {
					sm := &servers.Members[k]
					p.project = append(p.project, declaration{
						name:  decodeString(sm.Name.Value.(hujson.Literal), sm.Name.StartOffset),
						value: &sm.Value,
					})
				}
			}
		}
		return
	}
}

// withProjectServers puts the project's servers before the user's: a
// user server of the same name is shadowed, with a warning.
func (p *fileParser) withProjectServers(decls []declaration) []declaration {
	if len(p.project) == 0 {
		return decls
	}
	local := make(map[string]bool, len(p.project))
	for _, d := range p.project {
		local[d.name.value] = true
	}
	out := append([]declaration{}, p.project...)
	for _, d := range decls {
		if local[d.name.value] {
			p.diag(d.name.start, messages.SeverityWarning, fmt.Sprintf(
				"server %q is shadowed by this project's server of the same name in \"projects\" (Claude Code's local scope wins over the user's); this one is ignored", d.name.value))
			continue
		}
		out = append(out, d)
	}
	return out
}
