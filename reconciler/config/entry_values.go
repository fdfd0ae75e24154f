package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The values of a server entry's scalar fields: each read, expanded
// where the field allows it, and checked, its errors reported at the
// value's position.

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
