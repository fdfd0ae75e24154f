package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// maxNesting bounds how deeply arrays and objects may nest. hujson parses
// recursively, and a 4 MiB file of "[" would otherwise need gigabytes of
// stack, which is a fatal error, not a panic. Real config files nest four or
// five levels.
const maxNesting = 256

// utf8BOM is written by some Windows editors at the start of a file.
var utf8BOM = []byte("\xef\xbb\xbf")

// ParseFile parses one config file: JSON with comments and trailing commas
// (JSONC), with servers under "mcpServers" (Claude Code, Cursor) or "servers"
// (VS Code), or both. It never fails as a whole for one bad entry: each entry
// is valid (in Servers) or invalid with a reason (in Invalid), and every
// problem is a diagnostic with a line and column.
//
// The file as a whole is not OK (and contributes nothing by itself; see Load
// for the last-good rule) when it is empty or holds only comments, has a
// syntax error, nests too deeply, or its top level or its "mcpServers" or
// "servers" value is not an object. Other top-level keys are ignored without
// a diagnostic, because these files are shared with other tools (Claude
// Code's ~/.claude.json has dozens).
func ParseFile(path string, data []byte, opts LoadOptions) ParsedFile {
	p := &fileParser{path: path, opts: opts, dialect: dialectOf(path)}
	p.out.Path = path
	if bytes.HasPrefix(data, utf8BOM) {
		// Blank the BOM instead of slicing it off so that offsets, and so
		// columns on line 1, still match the file.
		data = append([]byte("   "), data[len(utf8BOM):]...)
	}
	p.lines = newLineIndex(path, data)
	p.out.OK = p.parse(data)
	// Servers and Invalid are built in name order (see entries).
	sortDiagnostics(p.out.Diagnostics)
	sortDiagnostics(p.out.Notes)
	boundTexts(p.out.Diagnostics, p.out.Invalid)
	return p.out
}

// fileParser holds the state of one ParseFile call.
type fileParser struct {
	path    string
	opts    LoadOptions
	dialect dialect
	// inputs are the file's declared VS Code inputs, by id.
	inputs map[string]inputDecl
	// project are the servers ~/.claude.json keeps for
	// LoadOptions.ProjectDir (see claude.go).
	project []declaration
	lines   lineIndex
	out     ParsedFile
	// namesOnly stops parse at the declared names, which it keeps in
	// names (see DeclaredNames): no entry is parsed.
	namesOnly bool
	names     []string
}

// declaration is one server entry as written: its name and its value.
type declaration struct {
	name  jsonString
	value *hujson.Value
}

// parse fills p.out and reports whether the file as a whole was usable.
func (p *fileParser) parse(data []byte) bool {
	if len(bytes.TrimSpace(data)) == 0 {
		p.diag(0, messages.SeverityWarning, "file is empty: it declares no servers; write {} to declare none on purpose")
		return false
	}
	if off, ok := checkNesting(data); !ok {
		p.diag(off, messages.SeverityError, fmt.Sprintf("arrays and objects nest more than %d levels deep: this is not an MCP config file", maxNesting))
		return false
	}
	root, err := hujson.Parse(data)
	if err != nil {
		if onlyComments(data) {
			p.diag(0, messages.SeverityWarning, "file holds only comments: it declares no servers; write {} to declare none on purpose")
			return false
		}
		p.syntaxError(err)
		return false
	}
	top, ok := root.Value.(*hujson.Object)
	if !ok {
		p.diag(root.StartOffset, messages.SeverityError,
			fmt.Sprintf(`the top level is %s, not an object: write {"mcpServers": {"name": {…}}}`, kindName(root.Value)))
		return false
	}

	var decls []declaration
	found := false
	for i := range top.Members {
		m := &top.Members[i]
		key := decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset)
		switch key.value {
		case "mcpServers", "servers":
		case "inputs":
			p.parseInputs(&m.Value)
			continue
		case "projects":
			if p.dialect == dialectClaudeUser {
				p.projectServers(&m.Value)
			}
			continue
		default:
			if strings.EqualFold(key.value, "mcpServers") || strings.EqualFold(key.value, "servers") {
				p.diag(m.Name.StartOffset, messages.SeverityWarning,
					fmt.Sprintf(`top-level key %q is ignored: did you mean "mcpServers" or "servers"? keys are case-sensitive`, key.value))
			}
			continue
		}
		found = true
		switch v := m.Value.Value.(type) {
		case *hujson.Object:
			for j := range v.Members {
				sm := &v.Members[j]
				decls = append(decls, declaration{
					name:  decodeString(sm.Name.Value.(hujson.Literal), sm.Name.StartOffset),
					value: &sm.Value,
				})
			}
		case hujson.Literal:
			if v.Kind() == 'n' {
				continue // null: no servers, as if the key were absent
			}
			p.notObject(key.value, &m.Value)
			return false
		default:
			p.notObject(key.value, &m.Value)
			return false
		}
	}
	if !found && len(top.Members) > 0 {
		p.diag(root.StartOffset, messages.SeverityWarning,
			`no "mcpServers" or "servers" object at the top level: this file declares no servers`)
	}
	decls = p.withProjectServers(decls)
	if p.namesOnly {
		p.names = namesOf(decls)
		return true
	}
	p.entries(decls)
	return true
}

// entries parses every declaration, turning a name declared twice in this
// file into one invalid entry: JSON parsers disagree on which duplicate wins
// (JavaScript keeps the last, mcpvisor's precedence keeps the first), so
// mcpvisor refuses to guess and asks for one of them to go.
func (p *fileParser) entries(decls []declaration) {
	first := make(map[string]int, len(decls))
	dup := make(map[string]bool)
	for i, d := range decls {
		j, seen := first[d.name.value]
		if !seen {
			first[d.name.value] = i
			continue
		}
		dup[d.name.value] = true
		firstPos := p.lines.pos(decls[j].name.start)
		p.diag(d.name.start, messages.SeverityError, fmt.Sprintf(
			"server %q is declared more than once in this file (first at line %d): remove or rename one; until then neither runs",
			d.name.value, firstPos.Line))
	}
	// Parse in name order, so that Servers and Invalid come out sorted
	// without moving the large specs around.
	order := make([]int, 0, len(first))
	for i, d := range decls {
		if first[d.name.value] == i {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(decls[a].name.value, decls[b].name.value) })
	for _, i := range order {
		d := decls[i]
		if p.skipUntrusted(d, dup[d.name.value]) {
			continue
		}
		if dup[d.name.value] {
			src := p.lines.pos(d.name.start)
			p.out.Invalid = append(p.out.Invalid, messages.InvalidServer{
				Name:   d.name.value,
				Source: src,
				Reason: formatPosition(src) + ": declared more than once in this file: remove or rename one",
			})
			continue
		}
		p.entry(d)
	}
}

// syntaxError reports a hujson parse error at its line and column. hujson
// reports positions only inside the error text ("hujson: line L, column C:
// …"); they are clamped so that a change of wording can never yield an
// invalid position.
func (p *fileParser) syntaxError(err error) {
	text := err.Error()
	line, col := 1, 1
	if _, serr := fmt.Sscanf(text, "hujson: line %d, column %d:", &line, &col); serr != nil {
		line, col = 1, 1
	}
	line = max(1, min(line, len(p.lines.starts)))
	col = max(1, col)
	msg := text
	if i := strings.Index(text, ", column "); i >= 0 {
		if _, after, ok := strings.Cut(text[i:], ": "); ok {
			msg = after
		}
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		msg = "unexpected end of file: a brace, bracket, string or comment is not closed"
	case strings.Contains(msg, "invalid literal"):
		// hujson quotes the whole literal, which may be a secret: say what
		// is wrong without it.
		msg = "invalid string, number or literal: check quotes, escapes and control characters (a string cannot span lines)"
	}
	p.out.Diagnostics = append(p.out.Diagnostics, messages.Diagnostic{
		Position: messages.Position{Path: p.path, Line: line, Column: col},
		Severity: messages.SeverityError,
		Message:  "syntax error: " + oneLine(msg),
	})
}

func (p *fileParser) notObject(key string, v *hujson.Value) {
	p.diag(v.StartOffset, messages.SeverityError, fmt.Sprintf(
		`%q must be an object that maps server names to entries, not %s`, key, kindName(v.Value)))
}

func (p *fileParser) diag(off int, sev messages.Severity, msg string) {
	p.out.Diagnostics = append(p.out.Diagnostics, messages.Diagnostic{
		Position: p.lines.pos(off),
		Severity: sev,
		Message:  oneLine(msg),
	})
}

// checkNesting scans data for bracket depth, skipping strings and comments,
// and returns the offset of the first bracket that nests deeper than
// maxNesting. It is a guard in front of hujson, not a parser: on malformed
// input it may give up early, and hujson reports the real error.
func checkNesting(data []byte) (int, bool) {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '[', '{':
			depth++
			if depth > maxNesting {
				return i, false
			}
		case ']', '}':
			depth--
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(data) && data[i+1] == '/' {
				n := bytes.IndexByte(data[i:], '\n')
				if n < 0 {
					return 0, true
				}
				i += n
			} else if i+1 < len(data) && data[i+1] == '*' {
				n := bytes.Index(data[i+2:], []byte("*/"))
				if n < 0 {
					return 0, true
				}
				i += 2 + n + 1
			}
		}
	}
	return 0, true
}

// onlyComments reports whether data holds nothing but whitespace and
// comments, which is how a file looks while an editor rewrites it or when a
// user comments everything out.
func onlyComments(data []byte) bool {
	probe := append(slices.Clip(data), "\nnull"...)
	v, err := hujson.Parse(probe)
	return err == nil && v.StartOffset == len(data)+1
}

// kindName names a JSON value's kind with its article, for messages.
func kindName(v hujson.ValueTrimmed) string {
	if v == nil {
		return "nothing"
	}
	switch v.Kind() {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "an unknown value"
}

// namesOf lists the declared names, in file order.
func namesOf(decls []declaration) []string {
	names := make([]string, 0, len(decls))
	for _, d := range decls {
		names = append(names, d.name.value)
	}
	return names
}
