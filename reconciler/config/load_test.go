package config_test

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// The files of the precedence tests: a project file and a user file.
const (
	projectPath = "/proj/.mcp.json"
	userPath    = "/home/ada/.claude.json"
)

func file(path, src string) config.FileContent {
	return config.FileContent{Path: path, Data: []byte(src)}
}

// TestLoad_Precedence: the first file to declare a name wins, whatever kind
// of entry it is; later declarations are shadowed with a warning at the
// shadowed entry that points at the winner.
func TestLoad_Precedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   []config.FileContent
		servers map[string]string // name → command, to see which file won
		invalid []string
		diags   []messages.Diagnostic
	}{
		{
			name: "disjoint names merge",
			files: []config.FileContent{
				file(projectPath, `{"mcpServers": {"a": {"command": "proj-a"}}}`),
				file(userPath, `{"mcpServers": {"b": {"command": "user-b"}}}`),
			},
			servers: map[string]string{"a": "proj-a", "b": "user-b"},
		},
		{
			name: "first file wins and the later one is shadowed",
			files: []config.FileContent{
				file(projectPath, `{"mcpServers": {"a": {"command": "proj-a"}}}`),
				file(userPath, `{"mcpServers": {"a": {"command": "user-a"}}}`),
			},
			servers: map[string]string{"a": "proj-a"},
			diags: []messages.Diagnostic{{
				Position: messages.Position{Path: userPath, Line: 1, Column: 17},
				Severity: messages.SeverityWarning,
				Message:  `server "a" is shadowed by the declaration at /proj/.mcp.json:1:17, which comes first in the file list; this one is ignored: rename or remove one of them`,
			}},
		},
		{
			name: "mcpServers and servers keys across files",
			files: []config.FileContent{
				file(projectPath, `{"servers": {"a": {"command": "proj-a"}}}`),
				file(userPath, `{"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}}}`),
			},
			servers: map[string]string{"a": "proj-a", "b": "user-b"},
			diags: []messages.Diagnostic{{
				Position: messages.Position{Path: userPath, Line: 1, Column: 17},
				Severity: messages.SeverityWarning,
				Message:  `server "a" is shadowed by the declaration at /proj/.mcp.json:1:14, which comes first in the file list; this one is ignored: rename or remove one of them`,
			}},
		},
		{
			name: "an invalid entry claims its name",
			files: []config.FileContent{
				file(projectPath, `{"mcpServers": {"a": {"command": "${NOPE}"}}}`),
				file(userPath, `{"mcpServers": {"a": {"command": "user-a"}}}`),
			},
			invalid: []string{"a"},
			diags: []messages.Diagnostic{
				{
					Position: messages.Position{Path: userPath, Line: 1, Column: 17},
					Severity: messages.SeverityWarning,
					Message:  `server "a" is shadowed by the declaration at /proj/.mcp.json:1:17, which comes first in the file list; this one is ignored: rename or remove one of them`,
				},
				{
					Position: messages.Position{Path: projectPath, Line: 1, Column: 35},
					Severity: messages.SeverityError,
					Message:  `server "a": command: variable NOPE is not set: set it in mcpvisor's environment, or give a default with ${NOPE:-default}`,
				},
			},
		},
		{
			name: "a disabled entry claims its name",
			files: []config.FileContent{
				file(projectPath, `{"mcpServers": {"a": {"command": "proj-a", "disabled": true}}}`),
				file(userPath, `{"mcpServers": {"a": {"command": "user-a"}}}`),
			},
			servers: map[string]string{"a": "proj-a"},
			diags: []messages.Diagnostic{{
				Position: messages.Position{Path: userPath, Line: 1, Column: 17},
				Severity: messages.SeverityWarning,
				Message:  `server "a" is shadowed by the declaration at /proj/.mcp.json:1:17, which comes first in the file list; this one is ignored: rename or remove one of them`,
			}},
		},
		{
			name: "a path listed twice is read once",
			files: []config.FileContent{
				file(projectPath, `{"mcpServers": {"a": {"command": "first"}}}`),
				file(userPath, `{"mcpServers": {"b": {"command": "user-b"}}}`),
				file("/proj/./.mcp.json", `{"mcpServers": {"a": {"command": "second"}, "c": {"command": "c"}}}`),
			},
			servers: map[string]string{"a": "first", "b": "user-b"},
		},
		{
			name: "a missing file contributes nothing and is not an error",
			files: []config.FileContent{
				{Path: projectPath, Missing: true},
				file(userPath, `{"mcpServers": {"a": {"command": "user-a"}}}`),
			},
			servers: map[string]string{"a": "user-a"},
		},
		{
			name: "an unreadable file is an error for that file only",
			files: []config.FileContent{
				{Path: projectPath, ReadErr: errors.New("read /proj/.mcp.json: is a directory")},
				file(userPath, `{"mcpServers": {"a": {"command": "user-a"}}}`),
			},
			servers: map[string]string{"a": "user-a"},
			diags: []messages.Diagnostic{{
				Position: messages.Position{Path: projectPath, Line: 1, Column: 1},
				Severity: messages.SeverityError,
				Message:  "cannot read config file: read /proj/.mcp.json: is a directory; make it a readable regular file of at most 4 MiB, or remove it from the list",
			}},
		},
		{
			name: "a syntax error in one file leaves the others running",
			files: []config.FileContent{
				file(projectPath, `{"mcpServers": {"a": {"command": "x"}`),
				file(userPath, `{"mcpServers": {"b": {"command": "user-b"}}}`),
			},
			servers: map[string]string{"b": "user-b"},
			diags: []messages.Diagnostic{{
				Position: messages.Position{Path: projectPath, Line: 1, Column: 38},
				Severity: messages.SeverityError,
				Message:  "syntax error: unexpected end of file: a brace, bracket, string or comment is not closed",
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, _ := config.Load(tt.files, testOpts(), nil)
			got := map[string]string{}
			for _, s := range cfg.Servers {
				got[s.Name] = s.Command
			}
			if tt.servers == nil {
				tt.servers = map[string]string{}
			}
			if diff := gocmp.Diff(tt.servers, got); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tt.invalid, invalidNames(cfg.Invalid)); diff != "" {
				t.Errorf("invalid (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tt.diags, cfg.Diagnostics); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoad_SortedOutput: servers and invalid entries by name, diagnostics
// by path, line and column, whatever the file order.
func TestLoad_SortedOutput(t *testing.T) {
	t.Parallel()
	cfg, _ := config.Load([]config.FileContent{
		file("/z.json", `{"servers": {"m": {"command": "x", "q": 1}, "b": {"command": "${NOPE}"}}}`),
		file("/a.json", `{"servers": {"z": {"command": "x"}, "a": {"command": "x", "q": 1}, "c": {"url": "/x"}}}`),
	}, testOpts(), nil)
	if diff := gocmp.Diff([]string{"a", "m", "z"}, names(cfg.Servers)); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]string{"b", "c"}, invalidNames(cfg.Invalid)); diff != "" {
		t.Errorf("invalid (-want +got):\n%s", diff)
	}
	var where []string
	for _, d := range cfg.Diagnostics {
		where = append(where, formatPos(d.Position))
	}
	want := []string{"/a.json:1:59", "/a.json:1:81", "/z.json:1:36", "/z.json:1:63"}
	if diff := gocmp.Diff(want, where); diff != "" {
		t.Errorf("diagnostic order (-want +got):\n%s\n%s", diff, formatDiags(cfg.Diagnostics))
	}
}

func formatPos(p messages.Position) string {
	return fmt.Sprintf("%s:%d:%d", p.Path, p.Line, p.Column)
}

// TestLoad_LastGood: a file that parsed before keeps what it contributed
// while it cannot be used, and says so; deleting it removes its servers.
func TestLoad_LastGood(t *testing.T) {
	t.Parallel()
	const good = `{"mcpServers": {
  "a": {"command": "a", "extra": 1},
  "b": {"command": "${NOPE}"}
}}`
	opts := testOpts()
	first, lastGood := config.Load([]config.FileContent{file(projectPath, good)}, opts, nil)
	if diff := gocmp.Diff([]string{"a"}, names(first.Servers)); diff != "" {
		t.Fatalf("first load servers (-want +got):\n%s", diff)
	}

	tests := []struct {
		name     string
		now      config.FileContent
		keep     bool
		fileDiag messages.Diagnostic // the diagnostic about the file now; zero for none
	}{
		{
			name: "syntax error keeps the last good servers",
			now:  file(projectPath, "{\"mcpServers\": {\n  \"a\": {\"command\": \"a\",, }\n}}"),
			keep: true,
			fileDiag: messages.Diagnostic{
				Position: messages.Position{Path: projectPath, Line: 2, Column: 24},
				Severity: messages.SeverityError,
				Message:  `syntax error: invalid character ',' at start of value; keeping the 2 servers last parsed from this file until it parses again`,
			},
		},
		{
			name: "truncated mid-save keeps them",
			now:  file(projectPath, good[:40]),
			keep: true,
			fileDiag: messages.Diagnostic{
				Position: messages.Position{Path: projectPath, Line: 2, Column: 24},
				Severity: messages.SeverityError,
				Message:  `syntax error: unexpected end of file: a brace, bracket, string or comment is not closed; keeping the 2 servers last parsed from this file until it parses again`,
			},
		},
		{
			name: "empty file keeps them",
			now:  file(projectPath, ""),
			keep: true,
			fileDiag: messages.Diagnostic{
				Position: messages.Position{Path: projectPath, Line: 1, Column: 1},
				Severity: messages.SeverityWarning,
				Message:  `file is empty: it declares no servers; write {} to declare none on purpose; keeping the 2 servers last parsed from this file until it parses again`,
			},
		},
		{
			name: "wrong top-level shape keeps them",
			now:  file(projectPath, `[]`),
			keep: true,
			fileDiag: messages.Diagnostic{
				Position: messages.Position{Path: projectPath, Line: 1, Column: 1},
				Severity: messages.SeverityError,
				Message:  `the top level is an array, not an object: write {"mcpServers": {"name": {…}}}; keeping the 2 servers last parsed from this file until it parses again`,
			},
		},
		{
			name: "read error keeps them",
			now:  config.FileContent{Path: projectPath, ReadErr: errors.New("permission denied")},
			keep: true,
			fileDiag: messages.Diagnostic{
				Position: messages.Position{Path: projectPath, Line: 1, Column: 1},
				Severity: messages.SeverityError,
				Message:  `cannot read config file: permission denied; make it a readable regular file of at most 4 MiB, or remove it from the list; keeping the 2 servers last parsed from this file until it parses again`,
			},
		},
		{
			name: "deleting the file removes its servers",
			now:  config.FileContent{Path: projectPath, Missing: true},
		},
		{
			name: "an empty object removes its servers",
			now:  file(projectPath, `{}`),
		},
		{
			name: "a good parse replaces them",
			now:  file(projectPath, `{"mcpServers": {}}`),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := maps.Clone(lastGood)
			cfg, next := config.Load([]config.FileContent{tt.now}, opts, lastGood)
			if diff := gocmp.Diff(before, lastGood); diff != "" {
				t.Fatalf("Load mutated its lastGood argument (-before +after):\n%s", diff)
			}
			var want []messages.Diagnostic
			if tt.fileDiag != (messages.Diagnostic{}) {
				want = append(want, tt.fileDiag)
			}
			if !tt.keep {
				if len(cfg.Servers)+len(cfg.Invalid) != 0 {
					t.Errorf("servers %v, invalid %v; want none", names(cfg.Servers), cfg.Invalid)
				}
				if diff := gocmp.Diff(want, cfg.Diagnostics); diff != "" {
					t.Errorf("diagnostics (-want +got):\n%s", diff)
				}
				_, kept := next[projectPath]
				if kept != !tt.now.Missing {
					t.Errorf("next lastGood has the file: %v, want %v", kept, !tt.now.Missing)
				}
				return
			}
			// Kept: the same servers and invalid entries as the first load,
			// the file's diagnostic, and the last good version's own
			// diagnostics, which still describe what runs.
			if diff := gocmp.Diff(first.Servers, cfg.Servers); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(first.Invalid, cfg.Invalid); diff != "" {
				t.Errorf("invalid (-want +got):\n%s", diff)
			}
			want = append(want, first.Diagnostics...)
			sortDiags(want)
			if diff := gocmp.Diff(want, cfg.Diagnostics); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(lastGood, next); diff != "" {
				t.Errorf("next lastGood (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoad_LastGoodAcrossLoads: the last-good entry survives several bad
// loads in a row, follows good loads, and is dropped for files no longer
// listed.
func TestLoad_LastGoodAcrossLoads(t *testing.T) {
	t.Parallel()
	opts := testOpts()
	load := func(lg map[string]config.ParsedFile, files ...config.FileContent) (config.Loaded, map[string]config.ParsedFile) {
		return config.Load(files, opts, lg)
	}
	_, lg := load(nil, file(projectPath, `{"servers": {"v1": {"command": "x"}}}`), file(userPath, `{"servers": {"u": {"command": "x"}}}`))
	cfg, lg := load(lg, file(projectPath, `{`), file(userPath, `{"servers": {"u": {"command": "x"}}}`))
	cfg, lg = load(lg, file(projectPath, `{"servers"`), file(userPath, `{"servers": {"u": {"command": "x"}}}`))
	if diff := gocmp.Diff([]string{"u", "v1"}, names(cfg.Servers)); diff != "" {
		t.Errorf("after two bad saves (-want +got):\n%s", diff)
	}
	cfg, lg = load(lg, file(projectPath, `{"servers": {"v2": {"command": "x"}}}`), file(userPath, `{"servers": {"u": {"command": "x"}}}`))
	cfg, lg = load(lg, file(projectPath, ``), file(userPath, `{"servers": {"u": {"command": "x"}}}`))
	if diff := gocmp.Diff([]string{"u", "v2"}, names(cfg.Servers)); diff != "" {
		t.Errorf("after a good then an empty save (-want +got):\n%s", diff)
	}
	_, lg = load(lg, file(projectPath, `{"servers": {"v2": {"command": "x"}}}`))
	if diff := gocmp.Diff([]string{projectPath}, sortedKeys(lg)); diff != "" {
		t.Errorf("lastGood keys after the user file left the list (-want +got):\n%s", diff)
	}
	// A file that never parsed has no last-good entry: its error stands alone.
	cfg, lg = load(lg, file(projectPath, `{"servers": {"v2": {"command": "x"}}}`), file(userPath, `{`))
	if diff := gocmp.Diff([]string{"v2"}, names(cfg.Servers)); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if _, ok := lg[userPath]; ok {
		t.Errorf("a file that never parsed got a lastGood entry")
	}
}

func sortedKeys(m map[string]config.ParsedFile) []string {
	return slices.Sorted(maps.Keys(m))
}

// sortDiags orders diagnostics as Load does (path, line, column).
func sortDiags(ds []messages.Diagnostic) {
	slices.SortStableFunc(ds, func(a, b messages.Diagnostic) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}
