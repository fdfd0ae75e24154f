package config

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

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
	// envFiles are the envFiles read, by path, with the SHA-256 of what
	// was read ("" when it could not be read): trust checks them.
	envFiles map[string]string
}

// entry parses one declaration into a valid spec or an invalid server.
func (p *fileParser) entry(d declaration) {
	e := &entryParser{p: p, name: d.name.value, source: p.lines.pos(d.name.start)}
	spec := e.parse(d)
	if why := p.envFileUntrusted(e); why != "" {
		p.untrusted(d, why) // none of what was read is used
		return
	}
	if len(e.reasons) == 0 {
		p.warnExposed(d) // an invalid entry runs nothing to expose
	}
	if len(e.reasons) == 0 && len(e.needs) > 0 {
		reason := p.needsInputReason(e.needs)
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
	e.checkCommandFound(f[rowCommand], &spec)
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
