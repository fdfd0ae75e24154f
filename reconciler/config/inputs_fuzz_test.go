package config_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// checkPrefixes asserts the naming invariants of a merged config: every
// non-empty exposed prefix is unique, made of MCP tool-name characters,
// free of "__", not starting or ending with "_", and at most
// MaxPrefixBytes long.
func checkPrefixes(t *testing.T, cfg config.Loaded) {
	t.Helper()
	seen := map[string]string{}
	for _, s := range cfg.Servers {
		p := s.Prefix
		if p == "" {
			if s.PrefixOverride == nil || *s.PrefixOverride != "" {
				t.Fatalf("server %q has an empty prefix it did not ask for", s.Name)
			}
			continue
		}
		if other, dup := seen[p]; dup {
			t.Fatalf("servers %q and %q share the prefix %q", other, s.Name, p)
		}
		seen[p] = s.Name
		if len(p) > config.MaxPrefixBytes || strings.Contains(p, "__") || p[0] == '_' || p[len(p)-1] == '_' {
			t.Fatalf("server %q has the prefix %q, which breaks the rules", s.Name, p)
		}
		for i := 0; i < len(p); i++ {
			c := p[i]
			if !(c == '_' || c == '-' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				t.Fatalf("server %q has the prefix %q, with a character MCP tool names do not allow", s.Name, p)
			}
		}
	}
}

// FuzzVSCodeInputs: whatever the inputs, their ids and the values given
// for them, parsing does not panic; an entry is valid, invalid or waits in
// needs-input; a password input's value is among the secrets of every
// entry that uses it; and no diagnostic or reason ever holds a value.
func FuzzVSCodeInputs(f *testing.F) {
	f.Add("token", `"password": true`, "s3cr3t-value", "--key=${input:token}")
	f.Add("a-b.c", `"options": ["x", "y"]`, "y", "${input:a-b.c}")
	f.Add("", `"password": 1`, "", "${input:}")
	f.Add("}", `"options": "x"`, "$${input:x}", "${input:}}")
	f.Fuzz(func(t *testing.T, id, extra, value, arg string) {
		idJSON, argJSON := quote(id), quote(arg)
		typ := "promptString"
		if strings.Contains(extra, "options") {
			typ = "pickString"
		}
		src := `{"inputs": [{"type": "` + typ + `", "id": ` + idJSON + `, ` + extra + `}],
		  "servers": {"s": {"command": "x", "args": [` + argJSON + `], "env": {"K": ` + argJSON + `}}}}`
		opts := config.LoadOptions{Home: "/home/fuzz", Inputs: config.InputStore{User: map[string]string{id: value}}}
		p := config.ParseFile("/fuzz/.vscode/mcp.json", []byte(src), opts)
		checkParsed(t, []byte(src), p)
		for _, inv := range p.Invalid {
			if st := inv.EntryState(); st != messages.StateInvalid && st != messages.StateNeedsInput {
				t.Fatalf("entry in state %s", st)
			}
		}
		if len(value) >= 8 && !strings.Contains(src, value) {
			for _, d := range p.Diagnostics {
				if strings.Contains(d.Message, value) {
					t.Fatalf("a diagnostic holds the value: %s", d.Message)
				}
			}
			for _, inv := range p.Invalid {
				if strings.Contains(inv.Reason, value) {
					t.Fatalf("a reason holds the value: %s", inv.Reason)
				}
			}
		}
		password := strings.Contains(extra, `"password": true`)
		for _, s := range p.Servers {
			if password && value != "" && strings.Contains(strings.Join(s.Args, " "), value) && !strings.Contains(arg, value) {
				found := false
				for _, sec := range config.SecretsOf(s) {
					found = found || sec == value
				}
				if !found {
					t.Fatalf("the password input's value is not a secret of %q", s.Name)
				}
			}
		}
	})
}

// FuzzParseDotenv: no input panics; an error never quotes the input; a
// result has valid keys only.
func FuzzParseDotenv(f *testing.F) {
	for _, s := range []string{"A=1\n", "export B=\"x\\ny\"\n", "C='multi\nline'\n", "D=\"open\n", "bad line\n", "E=a #c\r\nF= \t"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vals, err := config.ParseDotenv(data)
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Fatalf("a multi-line error: %q", msg)
			}
			for _, line := range strings.Split(string(data), "\n") {
				if len(strings.TrimSpace(line)) >= 12 && strings.Contains(msg, strings.TrimSpace(line)) {
					t.Fatalf("the error quotes the file: %q", msg)
				}
			}
			return
		}
		for k := range vals {
			if k == "" || strings.ContainsAny(k, "= \t\n#'\"") {
				t.Fatalf("key %q", k)
			}
		}
	})
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FuzzParseHelperHeaders: whatever a headersHelper prints, parsing does
// not panic; a result holds only valid header names and values; an error
// is one line and quotes no value.
func FuzzParseHelperHeaders(f *testing.F) {
	for _, s := range []string{`{"Authorization": "Bearer abc"}`, `{}`, `[]`, `null`, `{"A B": "x"}`, `{"X": 1}`, `{"X": "a\nb"}`, `{"X": "secret-value-1"`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		headers, err := config.ParseHelperHeaders(out)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			var vals map[string]any
			_ = json.Unmarshal(out, &vals)
			for k, v := range vals {
				// A value is never quoted; a name may be (it is not secret).
				if s, ok := v.(string); ok && len(s) >= 6 && !strings.Contains(k, s) && strings.Contains(err.Error(), s) {
					t.Fatalf("error %q quotes a value", err)
				}
			}
			return
		}
		for k, v := range headers {
			if k == "" || strings.ContainsAny(k, " :\r\n\x00") || strings.ContainsAny(v, "\r\n\x00") {
				t.Fatalf("header %q: %q", k, v)
			}
		}
	})
}
