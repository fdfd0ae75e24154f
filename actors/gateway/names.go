package gateway

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Names is how the gateway names the fleet's tools and prompts.
type Names string

const (
	// NamesPrefixed exposes each tool and prompt under its qualified
	// name, actors.QualifiedName(prefix, name): prefix__tool, where the
	// prefix is the server's exposed prefix (derived from its name, or
	// its configured prefix; "" exposes it bare). The default.
	NamesPrefixed Names = "prefixed"
	// NamesBare exposes tools and prompts as their servers name them.
	// When two servers offer the same name, the first in config order
	// wins and the conflict is reported.
	NamesBare Names = "bare"
)

// ParseNames reads a --names value.
func ParseNames(s string) (Names, error) {
	switch Names(s) {
	case NamesPrefixed, NamesBare:
		return Names(s), nil
	default:
		return "", fmt.Errorf("names %q: use prefixed or bare", s)
	}
}

// Option configures a Gateway.
type Option func(*Gateway)

// WithNames sets how tools and prompts are named (default NamesPrefixed).
func WithNames(n Names) Option { return func(g *Gateway) { g.names = n } }

// qualifiedName is a tool's or prompt's fleet-wide name: its server's
// exposed prefix and its own name, joined by actors.QualifiedName. The
// Source routes by it.
func qualifiedName(prefix, name string) string {
	return actors.QualifiedName(prefix, name)
}

// exposedName is the name the gateway gives a tool or prompt whose
// fleet-wide name is qualified and whose server calls it name.
func (g *Gateway) exposedName(qualified, name string) string {
	if g.names == NamesBare {
		return name
	}
	return qualified
}

// first returns a function that picks the first of servers in config
// order: of two servers that claim one name, URI or URI template, the one
// declared first (earlier file in Status.ConfigFiles, then earlier line)
// wins; servers from files not listed rank after those from listed ones,
// and ties go by file path, line, then server name. It reads the Source's
// status once, on first use: only when two servers claim one key.
func (g *Gateway) first() func(servers []string) string {
	var pos map[string]messages.Position
	var files []string
	return func(servers []string) string {
		if pos == nil {
			pos = map[string]messages.Position{}
			st := g.src.Status()
			for _, row := range st.Servers {
				pos[row.Name] = row.Source
			}
			files = st.ConfigFiles
		}
		fileRank := func(path string) int {
			if i := slices.Index(files, path); i >= 0 {
				return i
			}
			return len(files)
		}
		return slices.MinFunc(servers, func(a, b string) int {
			pa, pb := pos[a], pos[b]
			return cmp.Or(
				cmp.Compare(fileRank(pa.Path), fileRank(pb.Path)),
				cmp.Compare(pa.Path, pb.Path),
				cmp.Compare(pa.Line, pb.Line),
				cmp.Compare(pa.Column, pb.Column),
				cmp.Compare(a, b),
			)
		})
	}
}
