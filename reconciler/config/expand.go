package config

import (
	"fmt"
	"strings"
)

// Variable expansion in config values.
//
// The grammar, applied left to right in one pass (a substituted value is
// never expanded again, so a secret containing "${" or "$$" is taken as is):
//
//	$$                 a literal $
//	${NAME}            the value of NAME; unset is an error
//	${env:NAME}        the same, in VS Code's spelling
//	${NAME:-default}   NAME's value, or default when NAME is unset or empty
//	${env:NAME:-default}
//	$ followed by anything else is a literal $ ("$HOME" stays "$HOME")
//
// In a server entry (see entryParser.vars) also VS Code's:
//
//	${input:ID}        the value of the input ID (see inputs.go)
//	${workspaceFolder}, ${workspaceFolderBasename}, ${userHome},
//	${pathSeparator}, ${/}
//
// A predefined variable is never looked up in the environment.
//
// NAME is [A-Za-z_][A-Za-z0-9_]*. A default is literal text up to the first
// "}": it is not expanded and cannot contain "}". Anything else inside ${…}
// (VS Code's ${input:id}, shell forms like ${NAME-x}, an unterminated "${")
// is an error, because guessing would run a server with a value nobody
// wrote. An unset variable without a default is an error too: never a
// silent empty string. ReservedVariable is never expanded, with or without
// a default: a config file must not be able to send mcpvisor's own API
// token to a server.

// ReservedVariable holds the token of mcpvisor's HTTP API; config files
// cannot read it.
const ReservedVariable = "MCPVISOR_TOKEN"

// expandError says why expansion failed and where: Offset is the byte index,
// in the string being expanded, of the "$" that starts the bad reference. Messages
// name the variable but never echo a default or a value, which may be secret.
type expandError struct {
	Offset int
	Name   string // the variable, when the error is about one
	msg    string
	// needsInput marks an input without a value: the entry waits for it
	// (state needs-input) rather than being invalid.
	needsInput bool
}

func (e *expandError) Error() string { return e.msg }

// varSource answers the references of one value.
type varSource struct {
	// env answers ${NAME} and ${env:NAME}; nil: everything unset.
	env LookupEnv
	// predefined answers VS Code's predefined variables (${userHome},
	// ${/}, ...); nil where they are not known.
	predefined func(name string) (string, bool)
	// input answers ${input:ID}; nil where inputs are not known.
	input func(id string) (string, *expandError)
}

// expand substitutes variables in s. lookup may be nil (everything unset).
func expand(s string, lookup LookupEnv) (string, error) {
	return expandFrom(s, varSource{env: lookup})
}

// expandFrom substitutes the variables of s from src.
func expandFrom(s string, src varSource) (string, error) {
	i := strings.IndexByte(s, '$')
	if i < 0 {
		return s, nil // the common case: no allocation
	}
	var b strings.Builder
	b.Grow(len(s))
	done := 0 // s[:done] has been written to b
	for i >= 0 {
		at := done + i
		b.WriteString(s[done:at])
		n, err := expandOne(&b, s[at:], src)
		if err != nil {
			err.Offset = at
			return "", err
		}
		done = at + n
		i = strings.IndexByte(s[done:], '$')
	}
	b.WriteString(s[done:])
	return b.String(), nil
}

// expandOne expands the reference at the start of s (which begins with '$'),
// writes its value to b and returns how many bytes of s it consumed.
func expandOne(b *strings.Builder, s string, src varSource) (int, *expandError) {
	if len(s) < 2 || (s[1] != '$' && s[1] != '{') {
		b.WriteByte('$')
		return 1, nil
	}
	if s[1] == '$' {
		b.WriteByte('$')
		return 2, nil
	}
	end := strings.IndexByte(s[2:], '}')
	if end < 0 {
		return 0, &expandError{msg: `unterminated "${": close it with "}", or write "$${" for a literal "${"`}
	}
	body := s[2 : 2+end]
	consumed := 2 + end + 1

	if id, ok := strings.CutPrefix(body, "input:"); ok && src.input != nil {
		v, err := src.input(id)
		if err != nil {
			return 0, err
		}
		b.WriteString(v)
		return consumed, nil
	}
	if src.predefined != nil {
		if v, ok := src.predefined(body); ok {
			b.WriteString(v)
			return consumed, nil
		}
	}
	ref := strings.TrimPrefix(body, "env:")
	name := ref[:varNameLen(ref)]
	rest := ref[len(name):]
	if strings.HasPrefix(rest, ":") && vsCodeKinds[name] && !strings.HasPrefix(body, "env:") {
		// VS Code's ${kind:arg} forms (${input:…} outside an entry,
		// ${config:…}, ${command:…}): none is a variable with a default.
		return 0, &expandError{Name: name, msg: fmt.Sprintf(
			`"${%s:…}" is not a reference mcpvisor expands here: it knows ${NAME}, ${NAME:-default}, ${env:NAME}, ${input:ID} (with the file's "inputs") and VS Code's ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome}, ${pathSeparator} and ${/}; write "$${" for a literal "${"`, name)}
	}
	if name == "" {
		return 0, &expandError{msg: `"${" must be followed by a variable name such as ${HOME} or ${env:HOME}; write "$${" for a literal "${"`}
	}
	hasDefault := strings.HasPrefix(rest, ":-")
	if rest != "" && !hasDefault {
		return 0, &expandError{Name: name, msg: fmt.Sprintf(
			`unsupported reference "${%s…}": use ${%[1]s}, ${%[1]s:-default} or ${env:%[1]s}, or write "$${" for a literal "${"`, name)}
	}
	if name == ReservedVariable {
		return 0, &expandError{Name: name, msg: fmt.Sprintf(
			"variable %s is mcpvisor's own API token and is never expanded into a server's config: give the server a variable of its own", name)}
	}
	value, ok := "", false
	if src.env != nil {
		value, ok = src.env(name)
	}
	switch {
	case hasDefault && (!ok || value == ""):
		b.WriteString(rest[len(":-"):])
	case ok:
		b.WriteString(value)
	default:
		return 0, &expandError{Name: name, msg: fmt.Sprintf(
			"variable %s is not set: set it in mcpvisor's environment, or give a default with ${%[1]s:-default}", name)}
	}
	return consumed, nil
}

// vsCodeKinds are the kinds of VS Code's ${kind:arg} references.
var vsCodeKinds = map[string]bool{"input": true, "config": true, "command": true, "workspaceFolder": true, "workspaceFolderBasename": true, "extensionInstallFolder": true}

// varNameLen is the length of the variable name at the start of s.
func varNameLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return i
		}
	}
	return len(s)
}
