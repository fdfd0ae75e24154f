package config_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// testPath is where test config files pretend to live.
const testPath = "/proj/mcp.json"

// envOf returns a LookupEnv over a fixed map, so that tests never read the
// process environment.
func envOf(vars map[string]string) config.LookupEnv {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// testOpts is the environment most tests parse with.
func testOpts() config.LoadOptions {
	return config.LoadOptions{
		Home: "/home/ada",
		LookupEnv: envOf(map[string]string{
			"TOKEN": "tok-1234",
			"HOST":  "api.example.com",
			"EMPTY": "",
			"DIR":   "/srv/tools",
		}),
	}
}

// diag is a diagnostic as tests state it: where, how bad, and a fragment of
// the message (full messages are long and say what to do; tests pin the
// part that identifies the problem).
type diag struct {
	Line, Col int
	Sev       messages.Severity
	Has       string
}

func (d diag) String() string { return fmt.Sprintf("%d:%d %s %q", d.Line, d.Col, d.Sev, d.Has) }

// checkDiags compares diagnostics in order: positions and severities
// exactly, messages by fragment.
func checkDiags(t *testing.T, path string, got []messages.Diagnostic, want []diag) {
	t.Helper()
	type at struct {
		Path      string
		Line, Col int
		Sev       messages.Severity
	}
	var gotAt, wantAt []at
	for _, d := range got {
		gotAt = append(gotAt, at{d.Path, d.Line, d.Column, d.Severity})
	}
	for _, d := range want {
		wantAt = append(wantAt, at{path, d.Line, d.Col, d.Sev})
	}
	if diff := cmp.Diff(wantAt, gotAt); diff != "" {
		t.Errorf("diagnostic positions (-want +got):\n%s\nall got:\n%s", diff, formatDiags(got))
		return
	}
	for i, d := range want {
		if !strings.Contains(got[i].Message, d.Has) {
			t.Errorf("diagnostic %d: message %q does not contain %q", i, got[i].Message, d.Has)
		}
	}
}

func formatDiags(ds []messages.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "  %s:%d:%d: %s: %s\n", d.Path, d.Line, d.Column, d.Severity, d.Message)
	}
	return b.String()
}

// ignoreFingerprint compares specs without their fingerprints, which have
// their own tests.
var ignoreFingerprint = cmpopts.IgnoreFields(messages.ServerSpec{}, "Fingerprint")

// at is a position in testPath.
func at(line, col int) messages.Position {
	return messages.Position{Path: testPath, Line: line, Column: col}
}

// names lists the server names of a parse, valid and invalid, for tests
// that only care which entries ended where.
func names(servers []messages.ServerSpec) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.Name)
	}
	return out
}

func invalidNames(inv []messages.InvalidServer) []string {
	var out []string
	for _, s := range inv {
		out = append(out, s.Name)
	}
	return out
}

// onlyServer parses src and returns its single server, failing the test
// when there is not exactly one valid server.
func onlyServer(t *testing.T, src string, opts config.LoadOptions) messages.ServerSpec {
	t.Helper()
	p := config.ParseFile(testPath, []byte(src), opts)
	if len(p.Servers) != 1 {
		t.Fatalf("want one valid server, got %v; invalid %v; diagnostics:\n%s", names(p.Servers), p.Invalid, formatDiags(p.Diagnostics))
	}
	return p.Servers[0]
}
