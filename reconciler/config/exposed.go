package config

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// A process's command line is public on Linux: every local user reads it
// through ps or /proc/PID/cmdline. A ${GITHUB_TOKEN} expanded into a stdio
// server's command or args, or into the headersHelper text that runs as
// `sh -c TEXT`, is therefore readable by every user of the machine while
// the process runs. env and headers are not: they are what such a value is
// for. mcpvisor cannot tell a secret from any other value, so it warns by
// the name of what is referenced (secretLookingName); the warning is
// raised for every entry as written (`mcpvisor trust`) and for every
// parsed entry (`mcpvisor check`, and the diagnostics of a running
// mcpvisor).

// ExposedSecret is a secret-looking reference that an entry expands into
// text on a command line.
type ExposedSecret struct {
	Server string
	// Position is where the string that holds the reference starts.
	Position messages.Position
	// Field is where it is expanded: "command", "args[2]" or
	// "headersHelper".
	Field string
	// Reference is what is referenced, as written between "${" and "}"
	// but without a default: "GITHUB_TOKEN", "env:GITHUB_TOKEN",
	// "input:github-pat". It is made of letters, digits, "_", "-" and ".".
	Reference string
}

// Message says what is exposed and how to pass it instead, naming the
// reference, never a value.
func (x ExposedSecret) Message() string {
	ref := "${" + x.Reference + "}"
	name, isInput := strings.CutPrefix(x.Reference, "input:")
	name = strings.TrimPrefix(name, "env:")
	var fix string
	switch {
	case x.Field == fieldHeadersHelper && isInput:
		fix = fmt.Sprintf(`send it with headers instead ("headers": {"Authorization": "Bearer %s"})`, ref)
	case x.Field == fieldHeadersHelper:
		fix = fmt.Sprintf(`send it with headers instead ("headers": {"Authorization": "Bearer %s"}), or write $%s without braces so that the helper's shell reads it from the environment it inherits`, ref, name)
	case isInput:
		fix = fmt.Sprintf(`pass it in env instead ("env": {"NAME": "%s"}) and have the server read it from there`, ref)
	default:
		fix = fmt.Sprintf(`pass it in env instead ("env": {"%s": "%s"}) and have the server read it from there (a shell wrapper reads $%[1]s; a program that expands variables itself, as mcp-remote does, gets "$%[2]s")`, name, ref)
	}
	return fmt.Sprintf("%s is expanded into %s, a command line every local user can read (ps, /proc/PID/cmdline): %s", ref, x.Field, fix)
}

// ExposedSecrets lists, for every entry of a config file as written
// (trusted or not: nothing is looked up), the secret-looking references
// it expands into a command line, in file order. A file that is not
// usable has none.
func ExposedSecrets(path string, data []byte) []ExposedSecret {
	raw, ok := rawEntries(path, data)
	if !ok {
		return nil
	}
	if bytes.HasPrefix(data, utf8BOM) {
		data = append([]byte("   "), data[len(utf8BOM):]...)
	}
	lines := newLineIndex(path, data)
	passwords := passwordInputsIn(data)
	var out []ExposedSecret
	for _, e := range raw {
		out = append(out, exposedIn(e.name, e.value, lines, passwords)...)
	}
	return out
}

// passwordInputsIn is the set of the ids of the inputs data declares
// "password": true (the file parses: rawEntries said so).
func passwordInputsIn(data []byte) map[string]bool {
	root, err := hujson.Parse(data)
	if err != nil {
		return nil
	}
	top, _ := root.Value.(*hujson.Object)
	if top == nil {
		return nil
	}
	out := map[string]bool{}
	for i := range top.Members {
		m := &top.Members[i]
		arr, ok := m.Value.Value.(*hujson.Array)
		if !ok || decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset).value != "inputs" {
			continue
		}
		for j := range arr.Elements {
			if id, ok := passwordInputID(&arr.Elements[j]); ok {
				out[id] = true
			}
		}
	}
	return out
}

// passwordInputID is the id of input v if it is declared "password": true.
func passwordInputID(v *hujson.Value) (string, bool) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return "", false
	}
	var id string
	var password bool
	for i := range obj.Members {
		m := &obj.Members[i]
		lit, isLit := m.Value.Value.(hujson.Literal)
		switch key := decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset).value; {
		case key == "id" && isLit && lit.Kind() == '"':
			id = decodeString(lit, m.Value.StartOffset).value
		case key == "password" && isLit && lit.Kind() == 't':
			password = true
		}
	}
	return id, password && id != ""
}

// warnExposed warns about each secret-looking reference the parsed entry
// expands into a command line.
func (p *fileParser) warnExposed(d declaration) {
	passwords := map[string]bool{}
	for id, decl := range p.inputs {
		passwords[id] = decl.password
	}
	for _, x := range exposedIn(d.name.value, d.value, p.lines, passwords) {
		p.out.Diagnostics = append(p.out.Diagnostics, messages.Diagnostic{
			Position: x.Position,
			Severity: messages.SeverityWarning,
			Message:  oneLine(fmt.Sprintf("server %q: %s", x.Server, x.Message())),
		})
	}
}

// exposedIn finds the secret-looking references in the command-line
// fields of one entry as written: by their names, and every
// ${input:ID} of an input the file declares "password": true (passwords).
func exposedIn(server string, v *hujson.Value, lines lineIndex, passwords map[string]bool) []ExposedSecret {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	var out []ExposedSecret
	check := func(field string, s *hujson.Value) {
		lit, ok := s.Value.(hujson.Literal)
		if !ok || lit.Kind() != '"' {
			return
		}
		for _, ref := range referencesIn(decodeString(lit, s.StartOffset).value) {
			if ref, _, _ = strings.Cut(ref, ":-"); secretLookingName(ref) || isPasswordInput(ref, passwords) {
				out = append(out, ExposedSecret{Server: server, Position: lines.pos(s.StartOffset), Field: field, Reference: ref})
			}
		}
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		switch key := decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset).value; key {
		case fieldCommand, fieldHeadersHelper:
			check(key, &m.Value)
		case fieldArgs:
			if arr, ok := m.Value.Value.(*hujson.Array); ok {
				for j := range arr.Elements {
					check(fieldRef{field: fieldArgs, index: j}.String(), &arr.Elements[j])
				}
			}
		}
	}
	return out
}

// isPasswordInput reports whether ref is "input:ID" of a password input.
// The id is quoted back to a terminal only if it is a name (as
// secretLookingName requires of the rest).
func isPasswordInput(ref string, passwords map[string]bool) bool {
	id, ok := strings.CutPrefix(ref, "input:")
	return ok && passwords[id] && isReferenceName(id)
}

// referencesIn lists the bodies of the "${…}" references of s as written
// ("GITHUB_TOKEN", "env:X", "input:id", "X:-default"), skipping "$$".
func referencesIn(s string) []string {
	var out []string
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		switch s[i+1] {
		case '$':
			i++
		case '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return out
			}
			out = append(out, s[i+2:i+2+end])
			i += 2 + end
		}
	}
	return out
}

// isReferenceName reports whether name is made of letters, digits, "_",
// "-" and ".": a name that may be quoted back to a terminal.
func isReferenceName(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isWordByte(c) && c != '.' {
			return false
		}
	}
	return true
}

// secretWordParts are words that mark a secret only as a whole part of a
// name ("GITHUB_PAT", "x-auth"), not inside one ("PATH", "AUTHOR").
var secretWordParts = []string{"pat", "auth"}

// secretLookingName reports whether a reference (without a default)
// names a secret by the usual words: the secret words of flags and
// variables (secretWords: KEY, TOKEN, SECRET, PASSWORD…) or CREDENTIAL
// anywhere in it, or a whole part such as PAT or AUTH. A name of other
// characters than letters, digits, "_", "-" and "." is no variable (and
// is not quoted back to a terminal).
func secretLookingName(ref string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(ref, "env:"), "input:")
	if !isReferenceName(name) {
		return false
	}
	if hasSecretWord(name) || strings.Contains(strings.ToLower(name), "credential") {
		return true
	}
	parts := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') })
	return slices.ContainsFunc(parts, func(p string) bool { return slices.Contains(secretWordParts, p) })
}
