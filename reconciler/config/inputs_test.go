package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

const vscodeFile = `{
  "inputs": [
    {"type": "promptString", "id": "token", "description": "API token", "password": true},
    {"type": "pickString", "id": "region", "options": ["eu", "us"], "default": "eu"},
    {"type": "promptString", "id": "user-name"}
  ],
  "servers": {
    "api": {"command": "srv", "args": ["--token=${input:token}", "--region", "${input:region}"]},
    "plain": {"command": "srv", "args": ["${workspaceFolder}", "${workspaceFolderBasename}", "${userHome}${/}x", "a${pathSeparator}b"]},
    "who": {"command": "srv", "env": {"USER_NAME": "${input:user-name}"}}
  }
}`

// ${input:ID} takes its value from MCPVISOR_INPUT_<ID>, else from the
// user's store; an entry with an input that has neither waits in state
// needs-input, naming the input and the command (it is not invalid, and
// no error is reported). A password input's value is a secret.
func TestParseFile_VSCodeInputs(t *testing.T) {
	t.Parallel()
	const path = "/work/proj/.vscode/mcp.json"
	opts := testOpts()
	got := config.ParseFile(path, []byte(vscodeFile), opts)
	want := map[string]messages.State{"api": messages.StateNeedsInput, "who": messages.StateNeedsInput}
	gotStates := map[string]messages.State{}
	for _, inv := range got.Invalid {
		gotStates[inv.Name] = inv.EntryState()
	}
	if diff := cmp.Diff(want, gotStates); diff != "" {
		t.Fatalf("entry states (-want +got):\n%s\n%s", diff, formatDiags(got.Diagnostics))
	}
	for _, d := range got.Diagnostics {
		if d.Severity == messages.SeverityError {
			t.Errorf("an input without a value is an error: %s", d.Message)
		}
	}
	api := got.Invalid[0]
	for _, frag := range []string{`input "token" has no value: run ` + "`mcpvisor input set token`" + ` (or set MCPVISOR_INPUT_token)`, `input "region" has no value`} {
		if !strings.Contains(api.Reason, frag) {
			t.Errorf("reason %q does not contain %q", api.Reason, frag)
		}
	}
	if who := got.Invalid[1]; !strings.Contains(who.Reason, "MCPVISOR_INPUT_user_name") {
		t.Errorf("reason %q does not name the variable with the id made a name", who.Reason)
	}

	// Values: the environment first, then the store.
	env := map[string]string{"MCPVISOR_INPUT_token": "s3cr3t-token-value"}
	opts.LookupEnv = envOf(env)
	opts.Inputs = config.InputStore{User: map[string]string{"region": "us", "token": "from-the-store", "user-name": "ada"}}
	got = config.ParseFile(path, []byte(vscodeFile), opts)
	if len(got.Invalid) != 0 {
		t.Fatalf("invalid: %s", formatDiags(got.Diagnostics))
	}
	byName := map[string]messages.ServerSpec{}
	for _, s := range got.Servers {
		byName[s.Name] = s
	}
	if diff := cmp.Diff([]string{"--token=s3cr3t-token-value", "--region", "us"}, byName["api"].Args); diff != "" {
		t.Errorf("api args (-want +got):\n%s", diff)
	}
	if !slices.Contains(config.SecretsOf(byName["api"]), "s3cr3t-token-value") {
		t.Errorf("the password input's value is not among the entry's secrets")
	}
	if slices.Contains(config.SecretsOf(byName["api"]), "us") {
		t.Errorf("a pickString value that is not a password is a secret")
	}
	if diff := cmp.Diff([]string{"/work/proj", "proj", "/home/ada/x", "a/b"}, byName["plain"].Args); diff != "" {
		t.Errorf("predefined variables (-want +got):\n%s", diff)
	}
	if byName["who"].Env["USER_NAME"] != "ada" {
		t.Errorf("who env = %v", byName["who"].Env)
	}
}

// A pickString value must be one of its options; ${workspaceFolder} is
// never an environment variable, and --workspace overrides it.
func TestParseFile_InputOptionsAndWorkspace(t *testing.T) {
	t.Parallel()
	opts := testOpts()
	opts.Inputs = config.InputStore{User: map[string]string{"region": "mars", "token": "t", "user-name": "u"}}
	got := config.ParseFile("/p/mcp.json", []byte(vscodeFile), opts)
	if len(got.Invalid) != 1 || !strings.Contains(got.Invalid[0].Reason, `the value of input "region" is not one of its options: set it to one of "eu", "us"`) {
		t.Fatalf("invalid = %+v", got.Invalid)
	}
	opts.LookupEnv = envOf(map[string]string{"workspaceFolder": "/from/env"})
	opts.Workspace = "/chosen"
	got = config.ParseFile("/p/mcp.json", []byte(`{"servers": {"s": {"command": "x", "args": ["${workspaceFolder}", "${env:workspaceFolder}"]}}}`), opts)
	if len(got.Servers) != 1 || !slices.Equal(got.Servers[0].Args, []string{"/chosen", "/from/env"}) {
		t.Fatalf("servers = %+v %s", got.Servers, formatDiags(got.Diagnostics))
	}
}

// ${NAME} that mcpvisor's environment does not set but the entry's own
// env does is taken from the entry's env: the mcp-remote pattern.
func TestParseFile_VariableFromTheEntrysEnv(t *testing.T) {
	t.Parallel()
	src := `{"mcpServers": {"remote": {"command": "npx", "args": ["mcp-remote", "https://h.example/mcp", "--header", "Authorization: Bearer ${AUTH}"], "env": {"AUTH": "${TOKEN}"}}}}`
	got := config.ParseFile("/p/mcp.json", []byte(src), testOpts())
	if len(got.Servers) != 1 {
		t.Fatalf("%s", formatDiags(got.Diagnostics))
	}
	if a := got.Servers[0].Args[3]; a != "Authorization: Bearer tok-1234" {
		t.Fatalf("args[3] = %q", a)
	}
}
