package config

import (
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// Hints: warnings for what is probably a mistake but could be meant. Each
// names what to write instead and never quotes a value that may be secret.

// hintBareVars warns about "$NAME" in an env value: mcpvisor (like Claude
// Code) expands only ${NAME}, so the server gets the text "$NAME".
func (e *entryParser) hintBareVars(v *hujson.Value) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		lit, ok := m.Value.Value.(hujson.Literal)
		if !ok || lit.Kind() != '"' {
			continue
		}
		s := decodeString(lit, m.Value.StartOffset)
		if name, at := bareVar(s.value); name != "" {
			key := decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset).value
			e.warnAt(s.offset(at), fmt.Sprintf(`%s: "$%s" is passed to the server as written (mcpvisor expands only ${NAME}): did you mean "${%[2]s}"?`,
				fieldRef{field: fieldEnv, index: -1, key: key}, name))
		}
	}
}

// bareVar finds the first "$NAME" in s that is not "$$" or "${": the
// name and the byte offset of its "$"; "" when there is none.
func bareVar(s string) (string, int) {
	for i := 0; i < len(s)-1; i++ {
		if s[i] != '$' {
			continue
		}
		if s[i+1] == '$' {
			i++ // "$$" is a literal "$"
			continue
		}
		if n := varNameLen(s[i+1:]); n > 0 {
			return s[i+1 : i+1+n], i
		}
	}
	return "", 0
}

// hintCommandWithSpaces warns about a command that holds its arguments:
// "node index.js" names no program (commands are not split by a shell).
// It asks LoadOptions.FileExists, when set, so that a program whose path
// really contains a space is left alone.
func (e *entryParser) hintCommandWithSpaces(v *hujson.Value, command string) {
	if !e.commandHoldsArgs(command) {
		return
	}
	fields := strings.Fields(command)
	e.warnAt(v.StartOffset, fmt.Sprintf(`command contains spaces and names no file: commands are not split by a shell; put the program in command and the rest in args: "command": %q, "args": [%d more]`,
		fields[0], len(fields)-1))
}
