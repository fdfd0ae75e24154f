package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// exposedFile expands secret-looking references into command lines (args,
// headersHelper, command) and harmless ones, and secrets where they
// belong (env, headers).
const exposedFile = `{"inputs": [{"id": "github-pat", "type": "promptString", "password": true},
  {"id": "gh", "type": "promptString", "password": true}, {"id": "dir", "type": "promptString"}], "mcpServers": {
  "gh": {"command": "gh-mcp", "args": ["--token", "${GITHUB_TOKEN}", "--dir", "${PATH}/${HOME}", "$${API_KEY}", "${input:gh}", "${input:dir}"], "env": {"OK_TOKEN": "${OK_TOKEN}"}},
  "helper": {"url": "https://h/mcp", "headersHelper": "printf '{\"x\": \"%s\"}' ${env:AWS_SECRET_ACCESS_KEY}"},
  "pat": {"command": "${GITHUB_PAT_RUNNER:-run}", "args": ["${input:github-pat}", "${AUTHOR}"]},
  "fine": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}}
}}`

// E1: a ${GITHUB_TOKEN} expanded into args or headersHelper is on a
// command line, which every local user reads with ps. Each such reference
// is found as written, with its field and position, and so is an
// ${input:ID} of an input declared "password": true whatever its name
// (${input:gh}); env, headers, "$$" escapes, names like PATH or AUTHOR and
// inputs that are no password are not.
func TestExposedSecrets(t *testing.T) {
	t.Parallel()
	var got []string
	for _, x := range config.ExposedSecrets(trustProject, []byte(exposedFile)) {
		got = append(got, x.Server+" "+x.Field+" "+x.Reference)
	}
	want := []string{
		"gh args[1] GITHUB_TOKEN",
		"gh args[5] input:gh",
		"helper headersHelper env:AWS_SECRET_ACCESS_KEY",
		"pat command GITHUB_PAT_RUNNER",
		"pat args[0] input:github-pat",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("exposed (-want +got):\n%s", diff)
	}
	// A reference that is no name is not quoted back to a terminal.
	if x := config.ExposedSecrets(trustProject, []byte(`{"mcpServers": {"x": {"command": "c", "args": ["${TOKEN\u001b[2J}"]}}}`)); len(x) != 0 {
		t.Fatalf("exposed: %+v", x)
	}
}

// check and a running mcpvisor warn about it for each valid entry, at the
// string's position, with the fix and never the value.
func TestParseFile_WarnsAboutSecretsOnTheCommandLine(t *testing.T) {
	t.Parallel()
	env := func(name string) (string, bool) { return "value-of-" + name, true }
	pf := config.ParseFile(trustProject, []byte(exposedFile), config.LoadOptions{LookupEnv: env,
		Inputs: config.InputStore{Shared: map[string]string{"github-pat": "pat-value"}}})
	var warnings []string
	for _, d := range pf.Diagnostics {
		if d.Severity == messages.SeverityWarning && strings.Contains(d.Message, "every local user can read") {
			warnings = append(warnings, d.Message)
			if strings.Contains(d.Message, "value-of-") {
				t.Errorf("a value is shown: %s", d.Message)
			}
		}
	}
	wantPrefixes := []string{
		`server "gh": ${GITHUB_TOKEN} is expanded into args[1], a command line every local user can read (ps, /proc/PID/cmdline): pass it in env instead ("env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"})`,
		`server "helper": ${env:AWS_SECRET_ACCESS_KEY} is expanded into headersHelper, a command line every local user can read (ps, /proc/PID/cmdline): send it with headers instead`,
	}
	for _, w := range wantPrefixes {
		var found bool
		for _, g := range warnings {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("no warning %s\ngot:\n%s", w, strings.Join(warnings, "\n"))
		}
	}
	if len(warnings) != 5 {
		t.Fatalf("%d warnings:\n%s", len(warnings), strings.Join(warnings, "\n"))
	}
}
