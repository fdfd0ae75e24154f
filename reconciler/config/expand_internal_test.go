package config

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fuzzEnv is the environment of the expansion tests: one ordinary value,
// one empty, and one that looks like a reference (it must stay literal).
func fuzzEnv(name string) (string, bool) {
	switch name {
	case "A":
		return "alpha", true
	case "E":
		return "", true
	case "R":
		return "${A}$$", true
	}
	return "", false
}

func TestExpand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string
		wantErr string // fragment
		offset  int
		name    string
	}{
		{in: "", want: ""},
		{in: "plain", want: "plain"},
		{in: "${A}", want: "alpha"},
		{in: "x${A}y${A}z", want: "xalphayalphaz"},
		{in: "${env:A}", want: "alpha"},
		{in: "${A:-d}", want: "alpha"},
		{in: "${U:-d}", want: "d"},
		{in: "${E:-d}", want: "d"},
		{in: "${env:U:-d}", want: "d"},
		{in: "${U:-}", want: ""},
		{in: "${E}", want: ""},
		{in: "${R}", want: "${A}$$"},
		{in: "$$", want: "$"},
		{in: "$$$$", want: "$$"},
		{in: "$${A}", want: "${A}"},
		{in: "$$$", want: "$$"},
		{in: "$", want: "$"},
		{in: "$A", want: "$A"},
		{in: "a$", want: "a$"},
		{in: "${U:-a}b}", want: "ab}"},
		{in: "${_x9}", wantErr: "variable _x9 is not set", offset: 0, name: "_x9"},
		{in: "ab${U}", wantErr: "variable U is not set", offset: 2, name: "U"},
		{in: "${A}${U}", wantErr: "variable U is not set", offset: 4, name: "U"},
		{in: "$$${U}", wantErr: "variable U is not set", offset: 2, name: "U"},
		{in: "${env:U}", wantErr: "variable U is not set", offset: 0, name: "U"},
		{in: "x${", wantErr: "unterminated", offset: 1},
		{in: "${A", wantErr: "unterminated", offset: 0},
		{in: "${}", wantErr: "variable name", offset: 0},
		{in: "${env:}", wantErr: "variable name", offset: 0},
		{in: "${9}", wantErr: "variable name", offset: 0},
		{in: "${ A}", wantErr: "variable name", offset: 0},
		{in: "${A }", wantErr: "unsupported", offset: 0, name: "A"},
		{in: "${A:d}", wantErr: "unsupported", offset: 0, name: "A"},
		{in: "${A-d}", wantErr: "unsupported", offset: 0, name: "A"},
		{in: "${A:=d}", wantErr: "unsupported", offset: 0, name: "A"},
		{in: "${input:x}", wantErr: "is not a reference mcpvisor expands here", offset: 0, name: "input"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := expand(tt.in, fuzzEnv)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("expand(%q) error %v", tt.in, err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("expand(%q) (-want +got):\n%s", tt.in, diff)
				}
				return
			}
			var xe *expandError
			if !errors.As(err, &xe) {
				t.Fatalf("expand(%q) = %q, %v; want an *expandError", tt.in, got, err)
			}
			if !strings.Contains(xe.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", xe.Error(), tt.wantErr)
			}
			if diff := cmp.Diff(struct {
				Offset int
				Name   string
			}{tt.offset, tt.name}, struct {
				Offset int
				Name   string
			}{xe.Offset, xe.Name}); diff != "" {
				t.Errorf("error location (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzExpand checks expand directly and through ParseFile: no panic; an
// error points at a "$" of the input; and in the file, the diagnostic's
// line and column point at that same "$", whatever escapes json.Marshal put
// before it.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		"", "${A}", "${U}", "$$", "${A:-x}", "${env:A}", "${", "${}", "a$b", "${A}${U}",
		"\t\"é${U}", "\x00${U}", "\xff${U}", "${input:x}", "~/${A}", "$$${U:-}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := expand(s, fuzzEnv)
		if err != nil {
			var xe *expandError
			if !errors.As(err, &xe) {
				t.Fatalf("error is %T, want *expandError", err)
			}
			if xe.Offset < 0 || xe.Offset >= len(s) || s[xe.Offset] != '$' {
				t.Fatalf("offset %d does not point at a $ in %q", xe.Offset, s)
			}
			if strings.ContainsAny(xe.Error(), "\r\n") {
				t.Fatalf("message spans lines: %q", xe.Error())
			}
		} else if !strings.Contains(s, "$") && got != s {
			t.Fatalf("expand(%q) = %q without any $", s, got)
		}

		// Through the file: json.Marshal escapes quotes, control
		// characters and HTML characters and replaces invalid UTF-8, so
		// the value the parser sees is the round-tripped one.
		raw, merr := json.Marshal(s)
		if merr != nil {
			t.Fatal(merr)
		}
		var decoded string
		if err := json.Unmarshal(raw, &decoded); err != nil {
			t.Fatal(err)
		}
		// The file's values expand from more than the environment (VS
		// Code's predefined variables, the file's inputs): the reference
		// expands from the very source the parser uses for that file.
		opts := LoadOptions{LookupEnv: fuzzEnv}
		entry := &entryParser{p: &fileParser{path: "/f.json", opts: opts}}
		_, wantErr := expandFrom(decoded, entry.vars())
		src := []byte("{\"servers\": {\"s\": {\n\"command\": \"x\",\n\"args\": [" + string(raw) + "]}}}")
		p := ParseFile("/f.json", src, opts)
		checkPositions(t, src, p)
		if wantErr == nil {
			return
		}
		var dollar int
		for _, d := range p.Diagnostics {
			if d.Severity != "error" || strings.Contains(d.Message, "NUL") {
				continue
			}
			dollar++
			if d.Line != 3 || src[offsetOf(src, d.Line, d.Column)] != '$' {
				t.Fatalf("diagnostic %d:%d does not point at a $ in %q: %s", d.Line, d.Column, src, d.Message)
			}
		}
		if dollar != 1 {
			t.Fatalf("want one expansion diagnostic, got %d: %+v", dollar, p.Diagnostics)
		}
	})
}

// checkPositions asserts that every position a parse reports is valid: line
// and column at least 1, the line within the input, the column at most one
// past the line's end.
func checkPositions(t *testing.T, src []byte, p ParsedFile) {
	t.Helper()
	lines := strings.Split(string(src), "\n")
	check := func(what string, line, col int) {
		t.Helper()
		if line < 1 || col < 1 || line > len(lines) || col > len(lines[line-1])+1 {
			t.Fatalf("%s at %d:%d is outside the input (%d lines)", what, line, col, len(lines))
		}
	}
	for _, d := range p.Diagnostics {
		check("diagnostic "+d.Message, d.Line, d.Column)
	}
	for _, s := range p.Servers {
		check("server "+s.Name, s.Source.Line, s.Source.Column)
	}
	for _, s := range p.Invalid {
		check("invalid server "+s.Name, s.Source.Line, s.Source.Column)
	}
}

// offsetOf converts a line and column back into a byte offset.
func offsetOf(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		off += strings.IndexByte(string(src[off:]), '\n') + 1
	}
	return off + col - 1
}
