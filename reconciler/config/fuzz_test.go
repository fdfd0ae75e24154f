package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// fuzzSeeds are the hand-written seeds of FuzzParseFile; the committed
// corpus under testdata/fuzz/FuzzParseFile holds more.
var fuzzSeeds = []string{
	``,
	`{}`,
	`{"mcpServers": {"a": {"command": "x", "args": ["${A}", "$$", "${B:-d}"], "env": {"K": "${env:A}"}}}}`,
	`{"servers": {"r": {"type": "sse", "url": "https://u:p@h/p?k=${A}", "headers": {"Authorization": "Bearer ${A}"}}}}`,
	"// c\n{\n  /* c */ \"mcpServers\": {\"a\": {\"command\": \"~/x\", \"cwd\": \"~\",},},\n}",
	`{"mcpServers": {"a": {"command": "x"}}, "servers": {"a": {"url": "http://h"}}}`,
	`{"mcpServers": {"__": 1, "": {}, "a": {"type": "ws"}, "b": {"command": "x", "url": "https://h"}}}`,
	`{"mcpServers": {"a": {"command": "x", "callTimeout": "-1s", "restart": "always", "allowTools": [""], "disabled": "no"}}}`,
	"\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"\\t\\u00e9\\ud83d\\ude00${NOPE}\"}}}",
	`{"mcpServers": {"a": {"command": "x"`,
	`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`,
	"{\"a\": \"\xff\"}",
}

// FuzzParseFile: no input makes ParseFile or Load panic, every position is
// inside the input, and the output keeps its invariants (sorted, unique
// names, valid names, fingerprints set, one-line messages).
func FuzzParseFile(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	opts := config.LoadOptions{
		Home:      "/home/fuzz",
		LookupEnv: envOf(map[string]string{"A": "alpha", "E": ""}),
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "/fuzz/.mcp.json"
		p := config.ParseFile(path, data, opts)
		checkParsed(t, data, p)

		// Through Load, alone and as a bad save after a good one: the
		// last-good rule must hold whatever the new content.
		good := []byte(`{"mcpServers": {"kept": {"command": "x"}}}`)
		_, lastGood := config.Load([]config.FileContent{{Path: path, Data: good}}, opts, nil)
		cfg, next := config.Load([]config.FileContent{{Path: path, Data: data}}, opts, lastGood)
		if !p.OK {
			if !slices.Contains(namesOf(cfg), "kept") {
				t.Fatalf("a bad save dropped the last good servers: %v", namesOf(cfg))
			}
			if len(next[path].Servers) != 1 {
				t.Fatalf("a bad save replaced the last good parse")
			}
		}
		for _, d := range cfg.Diagnostics {
			checkDiagnostic(t, data, d)
		}
		checkPrefixes(t, cfg)
	})
}

func namesOf(cfg config.Loaded) []string {
	return append(names(cfg.Servers), invalidNames(cfg.Invalid)...)
}

// checkParsed asserts the invariants of one ParseFile result.
func checkParsed(t *testing.T, data []byte, p config.ParsedFile) {
	t.Helper()
	for _, d := range p.Diagnostics {
		checkDiagnostic(t, data, d)
	}
	if !p.OK && (len(p.Servers) > 0 || len(p.Invalid) > 0) {
		t.Fatalf("a file that is not OK has entries: %v %v", names(p.Servers), p.Invalid)
	}
	if !p.OK && len(p.Diagnostics) == 0 {
		t.Fatalf("a file that is not OK has no diagnostic")
	}
	seen := map[string]bool{}
	for i, s := range p.Servers {
		checkPosition(t, data, "server "+s.Name, s.Source)
		if i > 0 && p.Servers[i-1].Name >= s.Name {
			t.Fatalf("servers not sorted and unique: %q then %q", p.Servers[i-1].Name, s.Name)
		}
		seen[s.Name] = true
		if strings.TrimSpace(s.Name) == "" || len(s.Name) > config.MaxNameBytes {
			t.Fatalf("valid server with an invalid name %q", s.Name)
		}
		if s.Fingerprint == "" || s.Fingerprint != config.Fingerprint(s) {
			t.Fatalf("server %q fingerprint %q, want %q", s.Name, s.Fingerprint, config.Fingerprint(s))
		}
		switch s.Transport {
		case messages.TransportStdio:
			if strings.TrimSpace(s.Command) == "" || s.URL != "" || s.Headers != nil {
				t.Fatalf("bad stdio spec %+v", s)
			}
		case messages.TransportHTTP, messages.TransportSSE:
			if s.URL == "" || s.Command != "" || s.Args != nil || s.Env != nil || s.Cwd != "" {
				t.Fatalf("bad remote spec %+v", s)
			}
		default:
			t.Fatalf("server %q has transport %q", s.Name, s.Transport)
		}
	}
	for i, s := range p.Invalid {
		checkPosition(t, data, "invalid server "+s.Name, s.Source)
		if i > 0 && p.Invalid[i-1].Name >= s.Name {
			t.Fatalf("invalid not sorted and unique: %q then %q", p.Invalid[i-1].Name, s.Name)
		}
		if seen[s.Name] {
			t.Fatalf("%q is both valid and invalid", s.Name)
		}
		if s.Reason == "" || strings.ContainsAny(s.Reason, "\r\n") {
			t.Fatalf("invalid server %q has reason %q", s.Name, s.Reason)
		}
	}
}

// checkDiagnostic asserts that a diagnostic prints as one
// "file:line:col: severity: message" line with a position in the input.
func checkDiagnostic(t *testing.T, data []byte, d messages.Diagnostic) {
	t.Helper()
	checkPosition(t, data, "diagnostic "+d.Message, d.Position)
	if d.Severity != messages.SeverityError && d.Severity != messages.SeverityWarning {
		t.Fatalf("diagnostic %q has severity %q", d.Message, d.Severity)
	}
	if d.Message == "" || strings.ContainsAny(d.Message, "\r\n") {
		t.Fatalf("diagnostic message %q is empty or spans lines", d.Message)
	}
}

// checkPosition asserts line ≥ 1, column ≥ 1, the line within the input
// and the column at most one past the end of that line.
func checkPosition(t *testing.T, data []byte, what string, p messages.Position) {
	t.Helper()
	lines := strings.Split(string(data), "\n")
	if p.Path == "" || p.Line < 1 || p.Column < 1 || p.Line > len(lines) || p.Column > len(lines[p.Line-1])+1 {
		t.Fatalf("%s at %s:%d:%d is outside the input (%d lines)", what, p.Path, p.Line, p.Column, len(lines))
	}
}
