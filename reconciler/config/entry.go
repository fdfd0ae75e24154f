package config

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// maxFields bounds the rows of serverFields, so that the values of one
// entry fit in an array on the stack and the keys seen in a bit set.
const maxFields = 32

// entryFields holds the value of each field of one entry, by row of
// serverFields; nil means absent. A JSON null counts as absent, since
// generators write it for unset optional fields.
type entryFields [maxFields]*hujson.Value

// fieldRef names a value in messages ("args", "args[2]", "env.TOKEN"). It
// is built into a string only when a message needs it: most values are
// fine, and formatting a label for each would cost an allocation apiece.
type fieldRef struct {
	field string
	index int    // element of an array, or -1
	key   string // member of an object, when index is -1
}

func ref(field string) fieldRef { return fieldRef{field: field, index: -1} }

// String renders the reference. A key that is not a plain identifier is
// quoted (env["A B"]), so that a key holding a newline or a terminal escape
// cannot break a one-line diagnostic.
func (r fieldRef) String() string {
	switch {
	case r.index >= 0:
		return r.field + "[" + strconv.Itoa(r.index) + "]"
	case r.key != "" && isPlainKey(r.key):
		return r.field + "." + r.key
	case r.key != "":
		return r.field + "[" + strconv.Quote(r.key) + "]"
	}
	return r.field
}

func isPlainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '-' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// entryParser parses one server entry. Every error is a diagnostic and a
// line of the invalid entry's reason; parsing goes on after an error so
// that one save shows every problem of the entry.
type entryParser struct {
	p       *fileParser
	name    string
	source  messages.Position
	reasons []string
	// alien holds the values of other tools' fields that map onto
	// mcpvisor's (see foreign.go).
	alien foreignValues
	// entryEnv is the entry's own env, once parsed: ${NAME} falls back on
	// it (see lookupEnv).
	entryEnv map[string]string
	// needs are the inputs without a value the entry refers to.
	needs []string
	// secrets are the values of password inputs the entry uses.
	secrets []string
}

// entry parses one declaration into a valid spec or an invalid server.
func (p *fileParser) entry(d declaration) {
	e := &entryParser{p: p, name: d.name.value, source: p.lines.pos(d.name.start)}
	spec := e.parse(d)
	if len(e.reasons) == 0 && len(e.needs) > 0 {
		reason := needsInputReason(e.needs)
		p.diag(d.name.start, messages.SeverityWarning, fmt.Sprintf("server %q waits for its inputs: %s", e.name, reason))
		p.out.Invalid = append(p.out.Invalid, messages.InvalidServer{
			Name: e.name, Source: e.source, Reason: reason, State: messages.StateNeedsInput,
		})
		return
	}
	if len(e.reasons) == 0 {
		spec.Secrets = e.secrets
		spec.Fingerprint = Fingerprint(spec)
		p.out.Servers = append(p.out.Servers, spec)
		return
	}
	p.out.Invalid = append(p.out.Invalid, messages.InvalidServer{
		Name:   e.name,
		Source: e.source,
		Reason: strings.Join(e.reasons, "; "),
	})
}

// parse reads every field of the entry, as serverFields says. The spec it
// returns is valid only if no error was recorded.
func (e *entryParser) parse(d declaration) messages.ServerSpec {
	spec := messages.ServerSpec{Name: e.name, Source: e.source}
	if msg := checkName(e.name); msg != "" {
		e.errorAt(d.name.start, msg)
	}
	obj, ok := d.value.Value.(*hujson.Object)
	if !ok {
		e.errorAt(d.value.StartOffset, fmt.Sprintf(`entry must be an object such as {"command": "…"} or {"url": "…"}, not %s`, kindName(d.value.Value)))
		return spec
	}
	f := e.collect(obj)
	if f[rowURL] == nil && e.alien.httpURL != nil {
		f[rowURL] = e.alien.httpURL // Gemini's streamable HTTP url
	}
	spec.Transport = e.transport(d, &f)

	// Read the fields of the entry's transport; when the transport is
	// unknown (already an error), read everything present so that one save
	// shows every problem.
	var reads transportKinds
	if spec.Transport == messages.TransportStdio || spec.Transport == "" {
		reads |= forStdio
	}
	if spec.Transport != messages.TransportStdio {
		reads |= forRemote
	}
	for _, i := range envFirst {
		row, v := &serverFields[i], f[i]
		switch {
		case v == nil || row.parse == nil:
		case row.reads&reads != 0:
			row.parse(e, v, &spec)
			if i == rowEnv || i == rowEnvFile {
				e.entryEnv = spec.Env
			}
		case !row.decidesTransport:
			e.warnAt(v.StartOffset, fmt.Sprintf("%s is not used by %s servers and is ignored: remove it", row.key, spec.Transport))
		}
	}
	e.applyForeign(&f, &spec)
	if v := f[rowHeaders]; v != nil && reads&forRemote != 0 {
		if msg := checkCleartextAuth(spec.URL, spec.Headers); msg != "" {
			e.warnAt(v.StartOffset, msg)
		}
	}
	return spec
}

// collect sorts the members of an entry into their fields, warning about
// unknown ones (other tools add their own, so they are not errors) and
// rejecting a field given twice.
func (e *entryParser) collect(obj *hujson.Object) entryFields {
	var f entryFields
	var seen uint32
	for i := range obj.Members {
		m := &obj.Members[i]
		lit := m.Name.Value.(hujson.Literal)
		// Field names need no decoding unless they hold escapes; a
		// decoded name is only needed for a message.
		name := lit[1 : len(lit)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			name = []byte(lit.String())
		}
		row := fieldIndex(name)
		if row < 0 {
			if key := decodeString(lit, m.Name.StartOffset); !e.foreign(key, &m.Value) {
				e.unknownField(key)
			}
			continue
		}
		slot, bit := &f[row], uint32(1)<<row
		if seen&bit != 0 {
			e.errorAt(m.Name.StartOffset, fmt.Sprintf("field %q is given more than once: remove all but one", name))
		}
		seen |= bit
		if lit, ok := m.Value.Value.(hujson.Literal); ok && lit.Kind() == 'n' {
			continue
		}
		if *slot == nil {
			// The first non-null value counts, so that a duplicate does not
			// also cause a "needs a command" error.
			*slot = &m.Value
		}
	}
	return f
}

func (e *entryParser) unknownField(key jsonString) {
	msg := fmt.Sprintf("unknown field %q is ignored", key.value)
	for _, row := range serverFields {
		if k := row.key; k != "" && strings.EqualFold(k, key.value) {
			msg += fmt.Sprintf(": did you mean %q? field names are case-sensitive", k)
			break
		}
	}
	e.warnAt(key.start, msg)
}

// transport decides the entry's transport from type, or infers it from
// command (stdio) or url (streamable HTTP), and rejects the combinations
// that contradict each other. It returns "" when the transport is unknown,
// which is always accompanied by an error.
func (e *entryParser) transport(d declaration, f *entryFields) messages.Transport {
	if f[rowType] == nil {
		switch {
		case f[rowCommand] != nil && f[rowURL] != nil:
			e.errorAt(f[rowURL].StartOffset, `has both command and url: keep command for a local (stdio) server or url for a remote one`)
			return ""
		case f[rowCommand] != nil:
			return messages.TransportStdio
		case f[rowURL] != nil:
			return e.untypedURL(f)
		}
		e.errorAt(d.name.start, `needs a command (a local stdio server) or a url (a remote http or sse server)`)
		return ""
	}
	s, ok := e.str(f[rowType], ref(fieldType))
	if !ok {
		return ""
	}
	t, ok := transportOf(s.value)
	if !ok {
		e.errorAt(f[rowType].StartOffset, fmt.Sprintf(`type %q is not supported: use "stdio", "http" (or "streamable-http") or "sse"`, s.value))
		return ""
	}
	switch {
	case t == messages.TransportStdio && f[rowURL] != nil:
		e.errorAt(f[rowURL].StartOffset, `url cannot be used with type "stdio": remove it, or set type to "http" or "sse"`)
	case t == messages.TransportStdio && f[rowCommand] == nil:
		e.errorAt(f[rowType].StartOffset, `type "stdio" needs a command`)
	case t != messages.TransportStdio && f[rowCommand] != nil:
		e.errorAt(f[rowCommand].StartOffset, fmt.Sprintf(`command cannot be used with type %q: remove it, or set type to "stdio"`, s.value))
	case t != messages.TransportStdio && f[rowURL] == nil:
		e.errorAt(f[rowType].StartOffset, fmt.Sprintf(`type %q needs a url`, s.value))
	}
	return t
}

func (e *entryParser) command(v *hujson.Value) string {
	if v == nil {
		return ""
	}
	s, ok := e.expand(v, ref(fieldCommand), true)
	if !ok {
		return ""
	}
	if strings.TrimSpace(s) == "" {
		e.errorAt(v.StartOffset, "command is empty (after expansion): name the program to run, and put its arguments in args")
		return ""
	}
	if msg := checkNoNUL(s); msg != "" {
		e.errorAt(v.StartOffset, "command "+msg)
	}
	return s
}

// cwd expands the working directory and resolves a relative one against the
// directory of the config file, so that a project's .mcp.json can say
// "cwd": "tools" whatever directory mcpvisor was started in. An empty cwd
// (for example "${DIR:-}" with DIR unset) means the default.
func (e *entryParser) cwd(v *hujson.Value) string {
	if v == nil {
		return ""
	}
	s, ok := e.expand(v, ref(fieldCwd), true)
	if !ok || s == "" {
		return ""
	}
	if msg := checkNoNUL(s); msg != "" {
		e.errorAt(v.StartOffset, "cwd "+msg)
		return ""
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(filepath.Dir(e.p.path), s)
	}
	return filepath.Clean(s)
}

func (e *entryParser) url(v *hujson.Value) string {
	if v == nil {
		return "" // already reported by transport
	}
	s, ok := e.expand(v, ref(fieldURL), false)
	if !ok {
		return ""
	}
	if msg := checkURL(s); msg != "" {
		e.errorAt(v.StartOffset, msg)
	}
	return s
}

// prefix reads the prefix field: a string, "" included.
func (e *entryParser) prefix(v *hujson.Value) *string {
	s, ok := e.str(v, ref(fieldPrefix))
	if !ok {
		return nil
	}
	if msg := checkPrefix(s.value); msg != "" {
		e.errorAt(v.StartOffset, msg)
	}
	return &s.value
}

// restartPolicy reads the restart field.
func (e *entryParser) restartPolicy(v *hujson.Value) messages.RestartPolicy {
	s, ok := e.str(v, ref(fieldRestart))
	if !ok {
		return ""
	}
	pol, ok := restartPolicyOf(s.value)
	if !ok {
		e.errorAt(v.StartOffset, `restart must be "on-failure" or "never"`)
	}
	return pol
}

func (e *entryParser) autostart(v *hujson.Value) messages.Autostart {
	s, ok := e.str(v, ref(fieldAutostart))
	if !ok {
		return ""
	}
	a, ok := AutostartOf(s.value)
	if !ok {
		e.errorAt(v.StartOffset, `autostart must be "eager" or "lazy"`)
	}
	return a
}

func (e *entryParser) bool(v *hujson.Value, field string) bool {
	if v == nil {
		return false
	}
	if lit, ok := v.Value.(hujson.Literal); ok && (lit.Kind() == 't' || lit.Kind() == 'f') {
		return lit.Bool()
	}
	e.errorAt(v.StartOffset, fmt.Sprintf("%s must be true or false, not %s", field, kindName(v.Value)))
	return false
}

func (e *entryParser) timeout(v *hujson.Value, field string) time.Duration {
	if v == nil {
		return 0
	}
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		e.errorAt(v.StartOffset, fmt.Sprintf(`%s must be a duration string such as "30s" or "500ms", not %s`, field, kindName(v.Value)))
		return 0
	}
	d, msg := parseTimeout(decodeString(lit, v.StartOffset).value)
	if msg != "" {
		e.errorAt(v.StartOffset, field+" "+msg)
	}
	return d
}

// stringList reads an array of strings. With expandVars (args) each element
// is expanded and must not contain NUL; without (tool names) each element
// is taken literally and must be non-empty. An empty array is nil, so that
// "args": [] and no args are the same spec.
func (e *entryParser) stringList(v *hujson.Value, field string, expandVars bool) []string {
	if v == nil {
		return nil
	}
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		e.errorAt(v.StartOffset, fmt.Sprintf(`%s must be an array of strings such as ["a", "b"], not %s`, field, kindName(v.Value)))
		return nil
	}
	if len(arr.Elements) == 0 {
		return nil
	}
	out := make([]string, 0, len(arr.Elements))
	for i := range arr.Elements {
		el := &arr.Elements[i]
		label := fieldRef{field: field, index: i}
		if !expandVars {
			s, ok := e.str(el, label)
			if !ok {
				continue
			}
			if s.value == "" {
				e.errorAt(el.StartOffset, label.String()+" is empty: name a tool, or remove the element")
				continue
			}
			out = append(out, s.value)
			continue
		}
		s, ok := e.expand(el, label, false)
		if !ok {
			continue
		}
		if msg := checkNoNUL(s); msg != "" {
			e.errorAt(el.StartOffset, label.String()+" "+msg)
			continue
		}
		out = append(out, s)
	}
	return out
}

// stringMap reads an object of strings (env, headers), checking each name
// and each expanded value. Headers compare names case-insensitively, as HTTP
// does. An empty object is nil.
func (e *entryParser) stringMap(v *hujson.Value, field string, checkKey, checkValue func(string) string, foldCase bool) map[string]string {
	if v == nil {
		return nil
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		e.errorAt(v.StartOffset, fmt.Sprintf(`%s must be an object of strings such as {"NAME": "value"}, not %s`, field, kindName(v.Value)))
		return nil
	}
	if len(obj.Members) == 0 {
		return nil
	}
	out := make(map[string]string, len(obj.Members))
	var buf [smallKeySet]string
	seen := newKeySet(len(obj.Members), foldCase, buf[:0])
	for i := range obj.Members {
		m := &obj.Members[i]
		key := decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset)
		label := fieldRef{field: field, index: -1, key: key.value}
		if msg := checkKey(key.value); msg != "" {
			e.errorAt(key.start, msg)
			continue
		}
		if !seen.add(key.value) {
			e.errorAt(key.start, fmt.Sprintf("%s is given more than once: remove all but one", label))
			continue
		}
		if lit, ok := m.Value.Value.(hujson.Literal); ok && (lit.Kind() == '0' || lit.Kind() == 't' || lit.Kind() == 'f') {
			e.errorAt(m.Value.StartOffset, label.String()+" must be a string: put the value in double quotes")
			continue
		}
		s, ok := e.expand(&m.Value, label, false)
		if !ok {
			continue
		}
		if msg := checkValue(s); msg != "" {
			e.errorAt(m.Value.StartOffset, label.String()+" "+msg)
			continue
		}
		out[key.value] = s
	}
	return out
}

// keySet detects a repeated key in an object, optionally ignoring case.
// Objects in config files are small, so up to smallKeySet keys are compared
// in place and only a larger object pays for a map.
type keySet struct {
	fold  bool
	small []string
	large map[string]bool
}

const smallKeySet = 8

func newKeySet(n int, fold bool, buf []string) keySet {
	if n > smallKeySet {
		return keySet{fold: fold, large: make(map[string]bool, n)}
	}
	return keySet{fold: fold, small: buf}
}

// add records k and reports whether it was new.
func (s *keySet) add(k string) bool {
	if s.large != nil {
		if s.fold {
			k = strings.ToLower(k)
		}
		if s.large[k] {
			return false
		}
		s.large[k] = true
		return true
	}
	for _, o := range s.small {
		if o == k || (s.fold && strings.EqualFold(o, k)) {
			return false
		}
	}
	s.small = append(s.small, k)
	return true
}

// str reads a string value, reporting any other kind.
func (e *entryParser) str(v *hujson.Value, label fieldRef) (jsonString, bool) {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		e.errorAt(v.StartOffset, fmt.Sprintf("%s must be a string, not %s", label, kindName(v.Value)))
		return jsonString{}, false
	}
	return decodeString(lit, v.StartOffset), true
}

// expand reads a string value and expands its variables; with tilde, a
// leading "~" or "~/" becomes the home directory first. An error points at
// the exact character of the string that caused it.
func (e *entryParser) expand(v *hujson.Value, label fieldRef, tilde bool) (string, bool) {
	s, ok := e.str(v, label)
	if !ok {
		return "", false
	}
	text, skip := s.value, 0
	if tilde && tildeLen(text) > 0 {
		if e.p.opts.Home == "" {
			e.errorAt(s.offset(0), label.String()+`: cannot expand "~" because the home directory is unknown: write the full path`)
			return "", false
		}
		skip = 1
	}
	out, err := expandFrom(text[skip:], e.vars())
	if err != nil {
		var xe *expandError
		off := s.start
		if errors.As(err, &xe) {
			if xe.needsInput {
				return "", false // the entry waits for the input; not an error
			}
			off = s.offset(skip + xe.Offset)
		}
		e.errorAt(off, label.String()+": "+err.Error())
		return "", false
	}
	if skip > 0 {
		out = filepath.Join(e.p.opts.Home, out)
	}
	return out, true
}

func (e *entryParser) errorAt(off int, msg string) {
	msg = oneLine(msg)
	pos := e.p.lines.pos(off)
	e.p.out.Diagnostics = append(e.p.out.Diagnostics, messages.Diagnostic{
		Position: pos,
		Severity: messages.SeverityError,
		Message:  fmt.Sprintf("server %q: %s", e.name, msg),
	})
	e.reasons = append(e.reasons, formatPosition(pos)+": "+msg)
}

func (e *entryParser) warnAt(off int, msg string) {
	msg = oneLine(msg)
	e.p.out.Diagnostics = append(e.p.out.Diagnostics, messages.Diagnostic{
		Position: e.p.lines.pos(off),
		Severity: messages.SeverityWarning,
		Message:  fmt.Sprintf("server %q: %s", e.name, msg),
	})
}
