package gateway

import (
	"cmp"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
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

// WithMaxNameLength bounds exposed tool and prompt names (default
// DefaultMaxNameLength): n counts config.ClientNameAllowance (16) for a
// client's own wrapping, such as Claude Code's "mcp__<entry>__", so
// exposed names are at most n - 16 bytes (48 by default); a longer one is
// shortened (config.FitName: the prefix first, then the name, each cut
// and ended with a stable hash) and reported once. n of 0 or less: no
// bound; a positive n under config.MinMaxNameLength is raised to it.
func WithMaxNameLength(n int) Option {
	return func(g *Gateway) {
		if n > 0 {
			n = max(n, config.MinMaxNameLength)
		}
		g.maxNameLength = n
	}
}

// DefaultMaxNameLength is the default bound on exposed names, the
// client's wrapping included: the Anthropic API's 64.
const DefaultMaxNameLength = config.DefaultMaxNameLength

// qualifiedName is a tool's or prompt's fleet-wide name: its server's
// exposed prefix and its own name, joined by actors.QualifiedName. The
// Source routes by it.
func qualifiedName(prefix, name string) string {
	return actors.QualifiedName(prefix, name)
}

// exposedName is the name the gateway gives a tool or prompt (kind) that
// server calls name and exposes under prefix, qualified being their
// qualifiedName: qualified, or name with --names bare, shortened to the
// maximum name length. A name that had to be shortened, or that is still
// too long for Claude Code (a bound above the default, or none), is
// reported once. A name that fits costs no allocation. Callers hold g.mu.
func (g *Gateway) exposedName(kind messages.CatalogKind, server, prefix, name, qualified string) string {
	exposed := qualified
	if g.names == NamesBare {
		prefix, exposed = "", name
	}
	budget := config.NameBudget(g.maxNameLength)
	if (budget <= 0 || len(exposed) <= budget) && claudeCodeWrap+len(exposed) <= config.ClaudeCodeMaxName {
		return exposed
	}
	exposed, shortened := config.FitName(prefix, name, budget)
	g.reportLongName(kind, server, prefix, name, exposed, shortened)
	return exposed
}

// claudeCodeWrap is how many characters Claude Code adds to a name behind
// the entry mcpvisor: "mcp__mcpvisor__".
var claudeCodeWrap = len(config.ClaudeCodeName(config.ClaudeCodeEntry, ""))

// reportLongName warns, once per name, that a name was shortened or is
// too long for Claude Code, naming the server, the name, its length and
// the fix. Callers hold g.mu.
func (g *Gateway) reportLongName(kind messages.CatalogKind, server, prefix, name, exposed string, shortened bool) {
	key := string(kind) + "\x00" + server + "\x00" + name + "\x00" + exposed
	if _, done := g.longNames[key]; done {
		return
	}
	if g.longNames == nil {
		g.longNames = map[string]struct{}{}
	}
	g.longNames[key] = struct{}{}
	full := actors.QualifiedName(prefix, name)
	inClaude := config.ClaudeCodeName(config.ClaudeCodeEntry, full)
	fields := []zap.Field{zap.String("kind", string(kind)), zap.String("server", server), zap.String("name", name),
		zap.String("exposed", exposed), zap.Int("length", len(full)),
		zap.String("claude_code_name", inClaude), zap.Int("claude_code_length", len(inClaude)),
		zap.Int("max_name_length", g.maxNameLength), zap.String("fix", config.LongNameFix)}
	if shortened {
		g.log.Warn("name shortened to fit --max-name-length (the client's wrapping included)", fields...)
		return
	}
	g.log.Warn("name passes 64 characters in Claude Code (mcp__mcpvisor__<name>), whose API refuses it; keep --max-name-length at 64", fields...)
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
