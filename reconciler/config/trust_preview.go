package config

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// EntryPreview is what an entry would do once approved, as written: the
// strings are not expanded (a reference such as ${GITHUB_TOKEN} is shown
// as is, and the variables and inputs it reads are listed by name).
// `mcpvisor trust` prints it before asking for approval.
//
// It is complete by construction: every row of serverFields has a preview
// function (fields_internal_test.go fails for a row without one), a key
// that is not in the table is shown raw, and the references are collected
// from every string anywhere in the entry, not field by field.
type EntryPreview struct {
	Name   string
	Source messages.Position
	// Type is the declared type, or the one implied by command or url.
	Type string
	// Lines say what the entry does: the fields of serverFields in the
	// table's order, then every other key, raw, in file order.
	Lines []PreviewLine
	// Variables are the names of the variables the entry reads, and Inputs
	// the ids of the ${input:ID} it reads, sorted.
	Variables, Inputs []string
	// Replaces are the servers of the user's own files (PreviewOptions.
	// Others) that this entry would replace once approved.
	Replaces []ServerRef
	// Odd is true when a field does not have the shape mcpvisor expects
	// (the entry would be invalid); the preview shows what it could read.
	Odd bool
}

// PreviewLine is one thing an entry does. Text is safe to print: every
// string in it is quoted, or escaped where it is shown raw, so a hostile
// file cannot hide text behind terminal escapes.
type PreviewLine struct {
	// Fields are the entry keys the line shows (a stdio command and its
	// args share one line).
	Fields []string
	// Label says what the line is: "runs", "env", "headersHelper", …
	Label string
	Text  string
}

// ServerRef names a server declared in a file.
type ServerRef struct {
	Name, Path string
}

// PreviewOptions are what a preview needs to know beyond the file.
type PreviewOptions struct {
	// Others are the user's own config files (user-scoped or named), as
	// read; an entry with the name of one of their servers replaces it.
	Others []FileContent
	// ProjectDir is the project mcpvisor runs for, for the per-project
	// servers of ~/.claude.json among Others (see LoadOptions.ProjectDir).
	ProjectDir string
}

// PreviewEntries previews every entry of a project config file, in file
// order; ok is false when the file as a whole is not usable.
func PreviewEntries(path string, data []byte, opts PreviewOptions) ([]EntryPreview, bool) {
	raw, ok := rawEntries(path, data)
	if !ok {
		return nil, false
	}
	theirs := userServers(path, opts)
	out := make([]EntryPreview, 0, len(raw))
	for _, e := range raw {
		p := previewEntry(path, e)
		p.Replaces = theirs[e.name]
		out = append(out, p)
	}
	return out, true
}

// previewer builds the preview of one entry; the preview functions of
// serverFields add its lines.
type previewer struct {
	path string
	out  *EntryPreview
	// kind is the transport the entry's fields say it has; both kinds
	// when they do not say.
	kind transportKinds
	// members are the entry's members by key, in file order.
	members map[string][]*hujson.Value
	// line is the index in out.Lines of the line being added to, by key.
	line map[string]int
}

func previewEntry(path string, e rawEntry) EntryPreview {
	out := EntryPreview{Name: e.name, Source: e.source}
	obj, ok := e.value.Value.(*hujson.Object)
	if !ok {
		out.Odd = true
		out.Lines = append(out.Lines, PreviewLine{Label: "entry", Text: rawText(e.value)})
		return out
	}
	p := &previewer{path: path, out: &out, members: map[string][]*hujson.Value{}, line: map[string]int{}}
	var others []*hujson.ObjectMember
	for i := range obj.Members {
		m := &obj.Members[i]
		key := memberName(m)
		if fieldIndex([]byte(key)) < 0 {
			others = append(others, m)
			continue
		}
		if !isNull(&m.Value) {
			p.members[key] = append(p.members[key], &m.Value)
		}
	}
	for _, vs := range p.members {
		out.Odd = out.Odd || len(vs) > 1 // a key given twice: the entry is invalid
	}
	p.kind = p.transportKind(others)
	for i := range serverFields {
		row := &serverFields[i]
		for _, v := range p.members[row.key] {
			first := len(out.Lines)
			if row.preview == nil {
				previewRaw(row.key)(p, v) // never hidden, even by a row that lacks its preview
			} else {
				row.preview(p, v)
			}
			if row.reads&p.kind == 0 {
				for j := first; j < len(out.Lines); j++ {
					out.Lines[j].Text += " (ignored: not used by this transport)"
				}
			}
		}
	}
	for _, m := range others {
		p.add(memberName(m), quoteKey(memberName(m)), rawText(&m.Value)+foreignNote(memberName(m)))
	}
	out.Variables, out.Inputs = references(e.value)
	return out
}

// transportKind is the transport the entry declares or implies, as
// entryParser.transport decides it; both kinds when it is not clear.
func (p *previewer) transportKind(others []*hujson.ObjectMember) transportKinds {
	if types := p.members[fieldType]; len(types) > 0 {
		if s, ok := rawString(types[0]); ok {
			if t, ok := transportOf(s); ok {
				p.out.Type = string(t)
				if t == messages.TransportStdio {
					return forStdio
				}
				return forRemote
			}
		}
		return forAll
	}
	_, command := p.members[fieldCommand]
	_, url := p.members[fieldURL]
	for _, m := range others {
		url = url || memberName(m) == "httpUrl"
	}
	switch {
	case command && !url:
		p.out.Type = string(messages.TransportStdio)
		return forStdio
	case url && !command:
		p.out.Type = string(messages.TransportHTTP)
		if _, plain := p.members[fieldURL]; plain && dialectOf(p.path) == dialectGemini {
			p.out.Type = string(messages.TransportSSE) // see untypedURL
		}
		return forRemote
	}
	return forAll
}

// add adds a line for the entry key field.
func (p *previewer) add(field, label, text string) {
	p.line[field] = len(p.out.Lines)
	p.out.Lines = append(p.out.Lines, PreviewLine{Fields: []string{field}, Label: label, Text: text})
}

// extend adds text to the line of the entry key onto, if there is one,
// else adds a line of its own.
func (p *previewer) extend(onto, field, label, text string) {
	i, ok := p.line[onto]
	if !ok {
		p.add(field, label, text)
		return
	}
	l := &p.out.Lines[i]
	l.Fields = append(l.Fields, field)
	l.Text += " " + text
}

// str is v as a quoted string, or raw (and the entry odd) when it is not
// a string.
func (p *previewer) str(v *hujson.Value) string {
	s, ok := rawString(v)
	if !ok {
		p.out.Odd = true
		return rawText(v)
	}
	return strconv.Quote(s)
}

// strs is v as quoted strings, space-separated, or raw when it is not an
// array of strings.
func (p *previewer) strs(v *hujson.Value) string {
	list, ok := rawStrings(v)
	if !ok {
		p.out.Odd = true
		return rawText(v)
	}
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, " ")
}

// dir is the folder a relative path of the entry resolves against, for
// messages: the config file's.
func (p *previewer) dir() string { return filepath.Dir(p.path) }

// memberName is the decoded key of an object member.
func memberName(m *hujson.ObjectMember) string {
	return decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset).value
}

// rawText is a value as written, comments and whitespace removed, with
// every rune that is not printable escaped.
func rawText(v *hujson.Value) string {
	c := v.Clone()
	c.Minimize()
	return printable(string(c.Pack()))
}

// printable escapes the runes of s that a terminal would not show as
// themselves (control characters, bidirectional overrides, invalid UTF-8).
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == unicode.ReplacementChar:
			b.WriteString(`\ufffd`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			b.WriteString(strconv.QuoteRune(r)[1 : len(strconv.QuoteRune(r))-1])
		}
	}
	return b.String()
}

// quoteKey leaves a plain key as it is and quotes any other.
func quoteKey(k string) string {
	if k != "" && isPlainKey(k) {
		return k
	}
	return strconv.Quote(k)
}

// foreignNote says what mcpvisor makes of another tool's field shown raw.
func foreignNote(key string) string {
	ff, ok := foreignFields[key]
	switch {
	case !ok:
		return " (not a field mcpvisor knows: ignored)"
	case ff.kind == foreignMapped:
		return " (" + ff.tools + "'s: read as " + ff.as + ")"
	}
	return " (" + ff.tools + "'s: ignored)"
}

// references lists the variables and the inputs that the strings of v,
// wherever they are in it, refer to, each sorted once.
func references(v *hujson.Value) (vars, inputs []string) {
	var walk func(v *hujson.Value)
	walk = func(v *hujson.Value) {
		switch x := v.Value.(type) {
		case hujson.Literal:
			if x.Kind() == '"' {
				refsIn(decodeString(x, v.StartOffset).value, &vars, &inputs)
			}
		case *hujson.Array:
			for i := range x.Elements {
				walk(&x.Elements[i])
			}
		case *hujson.Object:
			for i := range x.Members {
				walk(&x.Members[i].Value)
			}
		}
	}
	walk(v)
	slices.Sort(vars)
	slices.Sort(inputs)
	return slices.Compact(vars), slices.Compact(inputs)
}

// refsIn adds the variables and inputs s refers to, with the grammar of
// expandOne, each reference on its own so that a bad one does not hide
// the next. VS Code's predefined variables are not listed: they are not
// read from anywhere a secret lives.
func refsIn(s string, vars, inputs *[]string) {
	src := varSource{
		env:        func(name string) (string, bool) { *vars = append(*vars, name); return "", true },
		predefined: func(name string) (string, bool) { return "", isPredefined(name) },
		input:      func(id string) (string, *expandError) { *inputs = append(*inputs, id); return "", nil },
	}
	for i := strings.IndexByte(s, '$'); i >= 0; i = strings.IndexByte(s, '$') {
		var b strings.Builder
		n, err := expandOne(&b, s[i:], src)
		if err != nil {
			if name := err.Name; name != "" {
				*vars = append(*vars, name) // a reference mcpvisor refuses still names what it wants
			}
			n = 2
		}
		s = s[i+n:]
	}
}

// isPredefined reports whether name is one of VS Code's predefined
// variables (see entryParser.predefined).
func isPredefined(name string) bool {
	switch name {
	case "workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator", "/":
		return true
	}
	return false
}

func rawString(v *hujson.Value) (string, bool) {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return "", false
	}
	return decodeString(lit, v.StartOffset).value, true
}

func rawStrings(v *hujson.Value) ([]string, bool) {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(arr.Elements))
	for i := range arr.Elements {
		s, ok := rawString(&arr.Elements[i])
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func isNull(v *hujson.Value) bool {
	lit, ok := v.Value.(hujson.Literal)
	return ok && lit.Kind() == 'n'
}
