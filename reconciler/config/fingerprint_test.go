package config_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// baseSpec is the spec the fingerprint tests vary one field at a time.
func baseSpec() messages.ServerSpec {
	return messages.ServerSpec{
		Name:      "s",
		Transport: messages.TransportStdio,
		Command:   "npx",
		Args:      []string{"-y", "server"},
		Env:       map[string]string{"A": "1", "B": "2"},
		Cwd:       "/srv",
		URL:       "",
		Headers:   nil,
		Source:    messages.Position{Path: "/a.json", Line: 1, Column: 1},
	}
}

func TestFingerprint_Format(t *testing.T) {
	t.Parallel()
	got := config.Fingerprint(baseSpec())
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(got) {
		t.Errorf("Fingerprint = %q, want 32 lowercase hex characters", got)
	}
	// Pinned: a change to the encoding restarts every server of every user
	// once after an upgrade. If that is intended, bump fingerprintVersion
	// and update this value.
	const pinned = "bd02cfdf6c4d18603fcd0cbae55aa5d9"
	if got != pinned {
		t.Errorf("Fingerprint(baseSpec()) = %q, want the pinned %q", got, pinned)
	}
}

// TestFingerprint_ChangesWithSessionFields: each session-affecting field,
// changed alone, changes the fingerprint.
func TestFingerprint_ChangesWithSessionFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*messages.ServerSpec)
	}{
		{"transport", func(s *messages.ServerSpec) { s.Transport = messages.TransportHTTP }},
		{"command", func(s *messages.ServerSpec) { s.Command = "node" }},
		{"an arg", func(s *messages.ServerSpec) { s.Args[1] = "other" }},
		{"arg order", func(s *messages.ServerSpec) { s.Args[0], s.Args[1] = s.Args[1], s.Args[0] }},
		{"one more arg", func(s *messages.ServerSpec) { s.Args = append(s.Args, "") }},
		{"args split differently", func(s *messages.ServerSpec) { s.Args = []string{"-ys", "erver"} }},
		{"an arg moved into the command", func(s *messages.ServerSpec) { s.Command = "npx -y"; s.Args = []string{"server"} }},
		{"an env value", func(s *messages.ServerSpec) { s.Env["A"] = "rotated" }},
		{"an env name", func(s *messages.ServerSpec) { s.Env = map[string]string{"A": "1", "C": "2"} }},
		{"an env entry added", func(s *messages.ServerSpec) { s.Env["C"] = "" }},
		{"env name and value swapped across the boundary", func(s *messages.ServerSpec) { s.Env = map[string]string{"A1": "", "B": "2"} }},
		{"cwd", func(s *messages.ServerSpec) { s.Cwd = "/srv/other" }},
		{"url", func(s *messages.ServerSpec) { s.URL = "https://h/" }},
		{"a header", func(s *messages.ServerSpec) { s.Headers = map[string]string{"Authorization": "Bearer x"} }},
		{"env moved to headers", func(s *messages.ServerSpec) { s.Headers, s.Env = s.Env, nil }},
	}
	base := config.Fingerprint(baseSpec())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := baseSpec()
			tt.change(&s)
			if got := config.Fingerprint(s); got == base {
				t.Errorf("changing %s left the fingerprint at %s", tt.name, got)
			}
		})
	}
}

// TestFingerprint_IgnoresLiveFields: what applies without a restart leaves
// the fingerprint alone, so the session is kept.
func TestFingerprint_IgnoresLiveFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*messages.ServerSpec)
	}{
		{"call timeout", func(s *messages.ServerSpec) { s.CallTimeout = time.Minute }},
		{"connect timeout", func(s *messages.ServerSpec) { s.ConnectTimeout = time.Minute }},
		{"allow list", func(s *messages.ServerSpec) { s.AllowTools = []string{"read"} }},
		{"deny list", func(s *messages.ServerSpec) { s.DenyTools = []string{"write"} }},
		{"disabled", func(s *messages.ServerSpec) { s.Disabled = true }},
		{"restart policy", func(s *messages.ServerSpec) { s.Restart = messages.RestartNever }},
		{"name", func(s *messages.ServerSpec) { s.Name = "renamed" }},
		{"source", func(s *messages.ServerSpec) { s.Source = messages.Position{Path: "/b.json", Line: 9, Column: 9} }},
		{"previous fingerprint", func(s *messages.ServerSpec) { s.Fingerprint = "stale" }},
		{"empty headers instead of nil", func(s *messages.ServerSpec) { s.Headers = map[string]string{} }},
	}
	base := config.Fingerprint(baseSpec())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := baseSpec()
			tt.change(&s)
			if got := config.Fingerprint(s); got != base {
				t.Errorf("changing %s changed the fingerprint: %s → %s", tt.name, base, got)
			}
		})
	}
}

// TestFingerprint_EmptyIsAbsent: "args": [] and no args are one spec.
func TestFingerprint_EmptyIsAbsent(t *testing.T) {
	t.Parallel()
	absent := messages.ServerSpec{Transport: messages.TransportStdio, Command: "x"}
	empty := messages.ServerSpec{Transport: messages.TransportStdio, Command: "x",
		Args: []string{}, Env: map[string]string{}, Headers: map[string]string{}}
	if a, e := config.Fingerprint(absent), config.Fingerprint(empty); a != e {
		t.Errorf("absent %s != empty %s", a, e)
	}
}

// TestFingerprint_FromFiles: the fingerprint ParseFile sets follows the
// expanded values, and not key order, formatting, comments or which
// top-level key declares the server.
func TestFingerprint_FromFiles(t *testing.T) {
	t.Parallel()
	const compact = `{"mcpServers": {"s": {"command": "npx", "args": ["-y", "srv"], "env": {"A": "${TOKEN}", "B": "2"}, "callTimeout": "5s"}}}`
	fingerprint := func(t *testing.T, src string, env map[string]string) string {
		t.Helper()
		opts := testOpts()
		if env != nil {
			opts.LookupEnv = envOf(env)
		}
		s := onlyServer(t, src, opts)
		if s.Fingerprint != config.Fingerprint(s) {
			t.Errorf("ParseFile set fingerprint %s, Fingerprint says %s", s.Fingerprint, config.Fingerprint(s))
		}
		return s.Fingerprint
	}
	base := fingerprint(t, compact, nil)
	same := map[string]string{
		"reordered and reformatted": `// reformatted
{
  "servers": {
    "s": {
      "callTimeout": "1m",   // a live field
      "env": {"B": "2", "A": "tok-1234",},
      "args": [
        "-y",
        "srv",
      ],
      "type": "stdio",
      "allowTools": ["x"],
      "command": "npx",
    },
  },
}`,
		"escaped": `{"mcpServers": {"s": {"command": "\u006epx", "args": ["-y", "srv"], "env": {"A": "tok-\u0031234", "B": "2"}}}}`,
	}
	for name, src := range same {
		if got := fingerprint(t, src, nil); got != base {
			t.Errorf("%s: fingerprint %s, want %s", name, got, base)
		}
	}
	rotated := fingerprint(t, compact, map[string]string{"TOKEN": "tok-5678"})
	if rotated == base {
		t.Errorf("rotating the value behind ${TOKEN} kept fingerprint %s", base)
	}
}
