package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// inheritEnv is true, false or a list of names and prefixes; anything else
// makes the entry invalid, and it is ignored with a warning where no
// process inherits anything.
func TestParseFile_InheritEnv(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		value string
		want  *messages.EnvPolicy
	}{
		{`true`, &messages.EnvPolicy{All: true}},
		{`false`, &messages.EnvPolicy{}},
		{`[]`, &messages.EnvPolicy{}},
		{`["PATH", "NODE_*", "npm_config_*"]`, &messages.EnvPolicy{Allow: []string{"PATH", "NODE_*", "npm_config_*"}}},
		{`null`, nil},
	} {
		s := onlyServer(t, `{"mcpServers": {"s": {"command": "x", "inheritEnv": `+tt.value+`}}}`, testOpts())
		if diff := cmp.Diff(tt.want, s.InheritEnv); diff != "" {
			t.Errorf("inheritEnv %s (-want +got):\n%s", tt.value, diff)
		}
	}
	for value, msg := range map[string]string{
		`"false"`:         "inheritEnv must be true, false or an array",
		`["A B"]`:         "inheritEnv[0] is not a variable name",
		`["*"]`:           "would inherit everything",
		`["N*X"]`:         "inheritEnv[0] is not a variable name",
		`["PATH", 1]`:     "inheritEnv[1] must be a string",
		`["${HOME}"]`:     "inheritEnv[0] is not a variable name",
		`{"PATH": true}`:  "inheritEnv must be true, false or an array",
		`["1ABC", "OK*"]`: "inheritEnv[0] is not a variable name",
	} {
		p := config.ParseFile(testPath, []byte(`{"mcpServers": {"s": {"command": "x", "inheritEnv": `+value+`}}}`), testOpts())
		if len(p.Invalid) != 1 || !strings.Contains(p.Invalid[0].Reason, msg) {
			t.Errorf("inheritEnv %s: invalid %+v, want a reason containing %q", value, p.Invalid, msg)
		}
	}
	p := config.ParseFile(testPath, []byte(`{"mcpServers": {"s": {"url": "https://h/mcp", "inheritEnv": false}}}`), testOpts())
	if len(p.Servers) != 1 || p.Servers[0].InheritEnv != nil || len(p.Diagnostics) != 1 ||
		!strings.Contains(p.Diagnostics[0].Message, "inheritEnv is not used by http servers") {
		t.Errorf("inheritEnv on an http server: %+v, diagnostics %+v, want it ignored with a warning", p.Servers, p.Diagnostics)
	}
}

// A spec without inheritEnv keeps the fingerprint it had before the field
// existed (the pinned value in TestFingerprint_Format); setting it changes
// the fingerprint, and true, false and a list all differ.
func TestFingerprint_InheritEnv(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for name, p := range map[string]*messages.EnvPolicy{
		"unset": nil, "all": {All: true}, "none": {}, "list": {Allow: []string{"NODE_*"}}, "other list": {Allow: []string{"NODE"}},
	} {
		s := baseSpec()
		s.InheritEnv = p
		fp := config.Fingerprint(s)
		if other, dup := seen[fp]; dup {
			t.Errorf("%s and %s share fingerprint %s", name, other, fp)
		}
		seen[fp] = name
	}
}

func TestInheritedEnviron(t *testing.T) {
	t.Parallel()
	environ := []string{"PATH=/bin", "HOME=/home/ada", "AWS_SECRET_ACCESS_KEY=s3cr3t", "LC_ALL=C", "NODE_OPTIONS=--x", "NODE=1", "GITHUB_TOKEN=ghp", "NOEQUALS"}
	tests := []struct {
		name   string
		policy *messages.EnvPolicy
		want   []string
	}{
		{"default inherits everything", nil, environ},
		{"true inherits everything", &messages.EnvPolicy{All: true}, environ},
		{"false keeps the base only", &messages.EnvPolicy{}, []string{"PATH=/bin", "HOME=/home/ada", "LC_ALL=C"}},
		{"a list adds names and prefixes to the base", &messages.EnvPolicy{Allow: []string{"NODE_*", "GITHUB_TOKEN"}},
			[]string{"PATH=/bin", "HOME=/home/ada", "LC_ALL=C", "NODE_OPTIONS=--x", "GITHUB_TOKEN=ghp"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, config.InheritedEnviron(environ, tt.policy)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestParseEnvPolicy(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]*messages.EnvPolicy{
		"all": {All: true}, "true": {All: true}, "none": {}, "false": {},
		"NODE_*, AWS_PROFILE": {Allow: []string{"NODE_*", "AWS_PROFILE"}},
	} {
		got, err := config.ParseEnvPolicy(in)
		if err != nil || !cmp.Equal(want, got) {
			t.Errorf("ParseEnvPolicy(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"A B", "*", "NODE_*,", "x=y"} {
		if _, err := config.ParseEnvPolicy(in); err == nil {
			t.Errorf("ParseEnvPolicy(%q) accepted", in)
		}
	}
}
