package config

import (
	"slices"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// EntryPreview is what an entry would run, as written: the strings are not
// expanded (a reference such as ${GITHUB_TOKEN} is shown as is, and the
// variables it reads are listed by name), and env and header values are not
// shown at all. `mcpvisor trust` prints it before asking for approval.
type EntryPreview struct {
	Name   string
	Source messages.Position
	// Type is the declared type, or the one implied by command or url.
	Type    string
	Command string
	Args    []string
	Cwd     string
	URL     string
	// EnvNames and HeaderNames are the names only, sorted.
	EnvNames, HeaderNames []string
	// Variables are the names of the variables the entry reads, sorted.
	Variables []string
	Disabled  bool
	// Odd is true when a field does not have the shape mcpvisor expects
	// (the entry would be invalid); the preview shows what it could read.
	Odd bool
}

// PreviewEntries previews every entry of a config file, in file order; ok
// is false when the file as a whole is not usable.
func PreviewEntries(path string, data []byte) ([]EntryPreview, bool) {
	raw, ok := rawEntries(path, data)
	if !ok {
		return nil, false
	}
	out := make([]EntryPreview, 0, len(raw))
	for _, e := range raw {
		out = append(out, previewEntry(e))
	}
	return out, true
}

func previewEntry(e rawEntry) EntryPreview {
	p := EntryPreview{Name: e.name, Source: e.source}
	obj, ok := e.value.Value.(*hujson.Object)
	if !ok {
		p.Odd = true
		return p
	}
	vars := map[string]bool{}
	read := func(s string) string {
		for _, name := range variablesIn(s) {
			vars[name] = true
		}
		return s
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		key := decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset).value
		v := &m.Value
		switch key {
		case fieldType:
			p.Type, ok = rawString(v)
		case fieldCommand:
			var s string
			s, ok = rawString(v)
			p.Command = read(s)
		case fieldCwd:
			var s string
			s, ok = rawString(v)
			p.Cwd = read(s)
		case fieldURL:
			var s string
			s, ok = rawString(v)
			p.URL = read(s)
		case fieldArgs:
			var list []string
			list, ok = rawStrings(v)
			for _, s := range list {
				p.Args = append(p.Args, read(s))
			}
		case fieldEnv:
			p.EnvNames, ok = rawNames(v, read)
		case fieldHeaders:
			p.HeaderNames, ok = rawNames(v, read)
		case fieldDisabled:
			lit, isLit := v.Value.(hujson.Literal)
			p.Disabled = isLit && lit.Kind() == 't'
			ok = true
		default:
			ok = true
		}
		p.Odd = p.Odd || !ok
	}
	if p.Type == "" {
		switch {
		case p.Command != "":
			p.Type = string(messages.TransportStdio)
		case p.URL != "":
			p.Type = string(messages.TransportHTTP)
		}
	}
	for name := range vars {
		p.Variables = append(p.Variables, name)
	}
	slices.Sort(p.Variables)
	return p
}

// variablesIn lists the variables a string reads when expanded, without
// looking any of them up.
func variablesIn(s string) []string {
	var names []string
	_, _ = expand(s, func(name string) (string, bool) {
		names = append(names, name)
		return "", true
	})
	return names
}

func rawString(v *hujson.Value) (string, bool) {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return "", isNull(v)
	}
	return decodeString(lit, v.StartOffset).value, true
}

func rawStrings(v *hujson.Value) ([]string, bool) {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil, isNull(v)
	}
	out := make([]string, 0, len(arr.Elements))
	all := true
	for i := range arr.Elements {
		s, ok := rawString(&arr.Elements[i])
		all = all && ok
		out = append(out, s)
	}
	return out, all
}

// rawNames lists an object's member names, sorted, passing each string
// value to read (which collects its variables) without keeping it.
func rawNames(v *hujson.Value, read func(string) string) ([]string, bool) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, isNull(v)
	}
	out := make([]string, 0, len(obj.Members))
	all := true
	for i := range obj.Members {
		m := &obj.Members[i]
		out = append(out, decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset).value)
		s, ok := rawString(&m.Value)
		all = all && ok
		read(s)
	}
	slices.Sort(out)
	return out, all
}

func isNull(v *hujson.Value) bool {
	lit, ok := v.Value.(hujson.Literal)
	return ok && lit.Kind() == 'n'
}
