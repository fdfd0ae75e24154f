package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Fields of other tools. These files are shared: Cline, Roo, VS Code,
// Kiro, Gemini and Claude Code each add fields of their own to a server
// entry. A field that is legitimate in the tool that wrote the file is not
// worth a warning: it is ignored with a note (shown by check --verbose),
// or, where mcpvisor can honour its meaning, mapped onto mcpvisor's own
// field. Only a field no tool defines gets the unknown-field warning.

// dialect is which tool wrote a file, as far as its path tells; it decides
// what an ambiguous field means (the unit of timeout, the transport of an
// untyped url).
type dialect uint8

const (
	dialectOther dialect = iota
	// dialectClaudeProject: a Claude Code project file (.mcp.json).
	dialectClaudeProject
	// dialectGemini: Gemini CLI's settings.json (in a .gemini folder).
	dialectGemini
	// dialectClaudeUser: Claude Code's ~/.claude.json, which also keeps
	// servers per project ("projects": {DIR: {"mcpServers": …}}).
	dialectClaudeUser
)

func dialectOf(path string) dialect {
	base, dir := filepath.Base(path), filepath.Base(filepath.Dir(path))
	switch {
	case base == ".mcp.json":
		return dialectClaudeProject
	case base == "settings.json" && dir == ".gemini":
		return dialectGemini
	case base == ".claude.json":
		return dialectClaudeUser
	}
	return dialectOther
}

// foreignKind says what mcpvisor does with a field of another tool.
type foreignKind uint8

const (
	foreignIgnored foreignKind = iota
	// foreignMapped fields fill one of mcpvisor's own (see applyForeign).
	foreignMapped
)

// foreignField is a field of another tool.
type foreignField struct {
	tools string // who defines it, for the note
	kind  foreignKind
	as    string // what a mapped field is read as, for the note
}

// foreignFields are the fields of other tools, by key.
var foreignFields = map[string]foreignField{
	"alwaysAllow":   {tools: "Cline and Roo"},
	"autoApprove":   {tools: "Cline, Roo, Kiro and Amazon Q"},
	"transportType": {tools: "Cline"},
	"dev":           {tools: "VS Code"},
	"gallery":       {tools: "VS Code"},
	"version":       {tools: "VS Code"},
	"description":   {tools: "VS Code"},
	"_comment":      {tools: "a comment"},
	"comment":       {tools: "a comment"},
	"note":          {tools: "a comment"},
	"_note":         {tools: "a comment"},
	"disabledTools": {tools: "Cline and Roo", kind: foreignMapped, as: "denyTools"},
	"tools":         {tools: "GitHub Copilot", kind: foreignMapped, as: `allowTools (["*"]: every tool)`},
	"timeout":       {tools: "Cline, Roo and Gemini", kind: foreignMapped, as: "callTimeout (seconds; milliseconds in Gemini's settings.json)"},
	"httpUrl":       {tools: "Gemini", kind: foreignMapped, as: "url, over streamable HTTP"},
}

// foreignValues holds the values of the mapped fields of one entry.
type foreignValues struct {
	disabledTools, tools, timeout, httpURL *hujson.Value
}

// foreign handles a key that is not mcpvisor's; it reports whether the
// key is another tool's (so no unknown-field warning is due).
func (e *entryParser) foreign(key jsonString, v *hujson.Value) bool {
	ff, ok := foreignFields[key.value]
	if !ok {
		return false
	}
	if ff.kind == foreignIgnored {
		msg := fmt.Sprintf("field %q of %s is ignored", key.value, ff.tools)
		if ff.tools == "a comment" {
			msg = fmt.Sprintf("comment field %q is ignored", key.value)
		}
		e.noteAt(key.start, msg)
		return true
	}
	if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == 'n' {
		return true
	}
	e.noteAt(key.start, fmt.Sprintf("field %q of %s is read as %s", key.value, ff.tools, ff.as))
	slot := map[string]**hujson.Value{
		"disabledTools": &e.alien.disabledTools, "tools": &e.alien.tools,
		"timeout": &e.alien.timeout, "httpUrl": &e.alien.httpURL,
	}[key.value]
	if *slot == nil {
		*slot = v
	}
	return true
}

// applyForeign maps the mapped fields of other tools onto the spec, where
// the entry does not set mcpvisor's own field (which then wins, with a
// warning).
func (e *entryParser) applyForeign(f *entryFields, spec *messages.ServerSpec) {
	a := &e.alien
	if v := a.disabledTools; v != nil && e.mappedOnto(v, "disabledTools", fieldDenyTools, f) {
		spec.DenyTools = e.stringList(v, "disabledTools", false)
	}
	if v := a.tools; v != nil && e.mappedOnto(v, "tools", fieldAllowTools, f) {
		if list := e.stringList(v, "tools", false); !slices.Contains(list, "*") {
			spec.AllowTools = list // ["*"] is every tool: no allow list
		}
	}
	if v := a.timeout; v != nil && e.mappedOnto(v, "timeout", fieldCallTimeout, f) {
		spec.CallTimeout = e.foreignTimeout(v)
	}
}

// mappedOnto reports whether the foreign field applies: the entry does not
// also set mcpvisor's own field.
func (e *entryParser) mappedOnto(v *hujson.Value, foreign, own string, f *entryFields) bool {
	if f[fieldNamed(own)] != nil {
		e.warnAt(v.StartOffset, fmt.Sprintf("%s and %s both given: %s is used, %s ignored", own, foreign, own, foreign))
		return false
	}
	return true
}

// foreignTimeout reads Cline's and Roo's timeout (seconds) or Gemini's
// (milliseconds), a positive number.
func (e *entryParser) foreignTimeout(v *hujson.Value) time.Duration {
	unit, unitName := time.Second, "seconds"
	if e.p.dialect == dialectGemini {
		unit, unitName = time.Millisecond, "milliseconds"
	}
	lit, ok := v.Value.(hujson.Literal)
	n := 0.0
	if ok && lit.Kind() == '0' {
		n = lit.Float()
	}
	if !ok || lit.Kind() != '0' || n <= 0 || n > float64(24*time.Hour/unit) {
		e.errorAt(v.StartOffset, fmt.Sprintf("timeout must be a positive number of %s (or use callTimeout, a duration such as \"30s\")", unitName))
		return 0
	}
	return time.Duration(n * float64(unit))
}

// untypedURL decides the transport of an entry with a url (or Gemini's
// httpUrl) and no type.
func (e *entryParser) untypedURL(f *entryFields) messages.Transport {
	switch {
	case e.alien.httpURL != nil && f[rowURL] == e.alien.httpURL:
		return messages.TransportHTTP
	case e.p.dialect == dialectGemini:
		return messages.TransportSSE // Gemini's url is HTTP+SSE; httpUrl is streamable
	case e.p.dialect == dialectClaudeProject:
		e.warnAt(f[rowURL].StartOffset, `a url server without "type" is rejected by Claude Code in .mcp.json; mcpvisor tries streamable HTTP (then HTTP+SSE): add "type": "http" or "type": "sse"`)
	}
	return messages.TransportHTTP
}

// noteAt records a note: something mcpvisor did quietly that check
// --verbose shows.
func (e *entryParser) noteAt(off int, msg string) {
	e.p.out.Notes = append(e.p.out.Notes, messages.Diagnostic{
		Position: e.p.lines.pos(off),
		Severity: messages.SeverityNote,
		Message:  fmt.Sprintf("server %q: %s", e.name, strings.TrimSpace(msg)),
	})
}
