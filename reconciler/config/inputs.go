package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// VS Code inputs and predefined variables.
//
// A VS Code mcp.json declares its inputs at the top level:
//
//	"inputs": [{"type": "promptString", "id": "token", "password": true},
//	           {"type": "pickString", "id": "region", "options": ["eu", "us"]}]
//
// and an entry refers to one as ${input:token}. VS Code prompts for the
// value; mcpvisor runs unattended, so the value comes from the variable
// InputEnvPrefix+ID (ID with every character other than A-Z, a-z, 0-9
// and _ made "_"), else from the input store (LoadOptions.Inputs, which
// `mcpvisor input set` writes), in the scope the file reads (see
// input_store.go: a project file reads only what was stored for its
// project, or for every file). An entry with an input that has neither is
// not invalid: it is shown in state needs-input, naming the input and the
// command, and starts once the value is set. The values of password
// inputs are secrets.

// InputEnvPrefix starts the environment variable that gives an input its
// value.
const InputEnvPrefix = "MCPVISOR_INPUT_"

// InputEnvName is the environment variable that gives input id its value.
func InputEnvName(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '_'
		}
	}
	return InputEnvPrefix + string(b)
}

// InputHint is the advice for an input without a value in scope.
func InputHint(scope InputScope, id string) string {
	return fmt.Sprintf("run `mcpvisor input set %s%s` (or set %s)", scope.SetFlag(), ShellQuote(id), InputEnvName(id))
}

// inputDecl is one declared input.
type inputDecl struct {
	password bool
	options  []string // pickString's choices; nil for promptString
}

// parseInputs reads the top-level "inputs" array. A malformed input is a
// warning and is left undeclared, so the entries that use it say so.
func (p *fileParser) parseInputs(v *hujson.Value) {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		p.diag(v.StartOffset, messages.SeverityWarning, `"inputs" must be an array of VS Code inputs such as {"type": "promptString", "id": "token"}; it is ignored`)
		return
	}
	p.inputs = make(map[string]inputDecl, len(arr.Elements))
	for i := range arr.Elements {
		el := &arr.Elements[i]
		obj, ok := el.Value.(*hujson.Object)
		if !ok {
			p.diag(el.StartOffset, messages.SeverityWarning, fmt.Sprintf("inputs[%d] is not an object: it is ignored", i))
			continue
		}
		var id, typ string
		var decl inputDecl
		for j := range obj.Members {
			m := &obj.Members[j]
			key := decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset).value
			lit, isLit := m.Value.Value.(hujson.Literal)
			switch {
			case key == "id" && isLit && lit.Kind() == '"':
				id = decodeString(lit, m.Value.StartOffset).value
			case key == "type" && isLit && lit.Kind() == '"':
				typ = decodeString(lit, m.Value.StartOffset).value
			case key == "password" && isLit && lit.Kind() == 't':
				decl.password = true
			case key == "options":
				decl.options = inputOptions(&m.Value)
			}
		}
		switch {
		case id == "":
			p.diag(el.StartOffset, messages.SeverityWarning, fmt.Sprintf(`inputs[%d] has no "id": it is ignored`, i))
		case typ != "promptString" && typ != "pickString":
			p.diag(el.StartOffset, messages.SeverityWarning, fmt.Sprintf(`input %q has type %q: mcpvisor takes "promptString" and "pickString" inputs; it is ignored`, id, typ))
		default:
			if typ == "promptString" {
				decl.options = nil
			}
			p.inputs[id] = decl
		}
	}
}

// inputOptions reads pickString's options: strings, or objects with a
// "value".
func inputOptions(v *hujson.Value) []string {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil
	}
	out := []string{}
	for i := range arr.Elements {
		switch x := arr.Elements[i].Value.(type) {
		case hujson.Literal:
			if x.Kind() == '"' {
				out = append(out, decodeString(x, 0).value)
			}
		case *hujson.Object:
			for j := range x.Members {
				m := &x.Members[j]
				lit, ok := m.Value.Value.(hujson.Literal)
				if ok && lit.Kind() == '"' && decodeString(m.Name.Value.(hujson.Literal), 0).value == "value" {
					out = append(out, decodeString(lit, 0).value)
				}
			}
		}
	}
	return out
}

// vars is what the entry's values are expanded from: mcpvisor's
// environment (then, for a variable it does not set, the entry's own
// env), the file's inputs and VS Code's predefined variables.
func (e *entryParser) vars() varSource {
	return varSource{env: e.lookupEnv, predefined: e.predefined, input: e.input}
}

// lookupEnv resolves ${NAME}: mcpvisor's environment, else the entry's
// own env (so that the common `--header "Authorization: Bearer ${TOKEN}"`
// with TOKEN in env works, as it does where the server expands it).
func (e *entryParser) lookupEnv(name string) (string, bool) {
	if look := e.p.opts.LookupEnv; look != nil {
		if v, ok := look(name); ok {
			return v, true
		}
	}
	v, ok := e.entryEnv[name]
	return v, ok
}

// predefined answers VS Code's predefined variables.
func (e *entryParser) predefined(name string) (string, bool) {
	switch name {
	case "workspaceFolder":
		return e.p.workspace(), true
	case "workspaceFolderBasename":
		return filepath.Base(e.p.workspace()), true
	case "userHome":
		return e.p.opts.Home, e.p.opts.Home != ""
	case "pathSeparator", "/":
		return string(filepath.Separator), true
	}
	return "", false
}

// workspace is the file's workspace folder: LoadOptions.Workspace, else
// the folder that holds .vscode/ for a .vscode/mcp.json, else the file's
// own folder.
func (p *fileParser) workspace() string {
	if p.opts.Workspace != "" {
		return p.opts.Workspace
	}
	return defaultWorkspace(p.path)
}

// input answers ${input:ID}.
func (e *entryParser) input(id string) (string, *expandError) {
	decl, ok := e.p.inputs[id]
	if !ok {
		return "", &expandError{msg: fmt.Sprintf(`input %q is not declared in the file's top-level "inputs": declare it, as VS Code needs too`, id)}
	}
	v, ok := "", false
	if look := e.p.opts.LookupEnv; look != nil {
		v, ok = look(InputEnvName(id))
	}
	if !ok {
		v, ok = e.p.opts.Inputs.Lookup(e.p.inputScope(), id)
	}
	if !ok {
		if !slices.Contains(e.needs, id) {
			e.needs = append(e.needs, id)
		}
		return "", &expandError{needsInput: true, msg: fmt.Sprintf("input %q has no value", id)}
	}
	if decl.options != nil && !slices.Contains(decl.options, v) {
		return "", &expandError{msg: fmt.Sprintf("the value of input %q is not one of its options: set it to one of %s", id, strings.Join(quoteAll(decl.options), ", "))}
	}
	if decl.password && v != "" {
		e.secrets = append(e.secrets, v)
	}
	return v, nil
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// inputScope is the scope of the stored inputs the file reads.
func (p *fileParser) inputScope() InputScope {
	if p.opts.asProjectFile {
		return ProjectInputScope(InputProjectDir(p.path))
	}
	return InputScopeOf(p.path, p.opts.Trust)
}

// needsInputReason is the reason of an entry waiting for inputs. A value
// the user stored for another scope is not used, and the reason says so:
// an upgrade from a store without scopes, or a value stored for the
// user's files, must not look like a lost value.
func (p *fileParser) needsInputReason(ids []string) string {
	scope := p.inputScope()
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("input %q has no value: %s", id, InputHint(scope, id))
		if scope.Project != "" {
			parts[i] = fmt.Sprintf("input %q has no value stored for %s: %s", id, scope, InputHint(scope, id))
		}
		if _, elsewhere := p.opts.Inputs.User[id]; elsewhere && scope.Project != "" {
			parts[i] += "; the value stored for your own config files is not given to project files"
		}
	}
	return strings.Join(parts, "; ")
}
