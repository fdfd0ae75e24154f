package config

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Load merges the configured files into one desired state.
//
// Files are in precedence order. The rules, in the order they apply:
//
//   - A path listed twice is read once: the first occurrence counts.
//   - A Missing file contributes nothing and is not an error. Deleting a file
//     therefore removes its servers, even ones kept by the last-good rule.
//   - A file with a ReadErr is an error diagnostic for that file only.
//   - Last-good rule: a file that parsed before (it has an entry in lastGood)
//     and now cannot be used (a syntax error, an empty file, a wrong
//     top-level shape, a read error) keeps contributing what it contributed
//     last time, so that an editor half-way through a save or a typo never
//     stops running servers. The error says so. The entry diagnostics of the
//     last good version are repeated, since they still describe what runs.
//   - The first file to declare a name wins, whether its entry is valid,
//     disabled or invalid; every later declaration of that name is reported
//     as shadowed (a warning) and ignored. An invalid entry claims its name
//     so that a typo in a project file never silently falls back to another
//     file's server of the same name.
//   - An untrusted entry (see LoadOptions.Trust) claims its name only when
//     no trusted entry of any file declares it, whatever the file order.
//
// Load returns the merged config and the new last-good map, which holds
// exactly the paths in files that are currently covered by a good parse. The
// input map is not modified; the caller passes the returned map to the next
// call.
func Load(files []FileContent, opts LoadOptions, lastGood map[string]ParsedFile) (Loaded, map[string]ParsedFile) {
	var cfg Loaded
	nextGood := make(map[string]ParsedFile, len(files))
	seen := make(map[string]bool, len(files))
	// winner maps each claimed name to where it was declared.
	winner := make(map[string]messages.Position)
	// untrusted entries claim their names after every trusted one.
	var untrusted []messages.InvalidServer

	for _, f := range files {
		path := filepath.Clean(f.Path)
		if seen[path] {
			continue
		}
		seen[path] = true

		used, diags := loadOne(f, path, opts, lastGood, nextGood)
		cfg.Diagnostics = append(cfg.Diagnostics, diags...)
		cfg.Notes = append(cfg.Notes, used.Notes...)
		for _, read := range used.EnvFiles {
			for path := range read {
				cfg.EnvFiles = append(cfg.EnvFiles, path)
			}
		}

		// Merge in name order so that the result does not depend on the order
		// of entries inside a file. A file never declares a name twice (the
		// parser turns a duplicate into one invalid entry), so only names
		// claimed by earlier files can shadow.
		for _, s := range used.Servers {
			if claimShadowed(winner, s.Name, s.Source, &cfg.Diagnostics) {
				continue
			}
			cfg.Servers = append(cfg.Servers, s)
		}
		for _, inv := range used.Invalid {
			if inv.State == messages.StateUntrusted {
				untrusted = append(untrusted, inv)
				continue
			}
			if claimShadowed(winner, inv.Name, inv.Source, &cfg.Diagnostics) {
				continue
			}
			cfg.Invalid = append(cfg.Invalid, inv)
		}
	}
	cfg.Invalid = append(cfg.Invalid, claimUntrusted(winner, untrusted, &cfg.Diagnostics)...)

	// Each file's entries are sorted, so with one file (or files whose
	// names do not interleave) there is nothing to do; sorting specs moves
	// a few hundred bytes apiece, so check first.
	byName := func(a, b messages.ServerSpec) int { return strings.Compare(a.Name, b.Name) }
	if !slices.IsSortedFunc(cfg.Servers, byName) {
		slices.SortFunc(cfg.Servers, byName)
	}
	var clashes []messages.InvalidServer
	cfg.Servers, clashes = assignPrefixes(cfg.Servers)
	for _, inv := range clashes {
		cfg.Diagnostics = append(cfg.Diagnostics, messages.Diagnostic{Position: inv.Source, Severity: messages.SeverityError,
			Message: fmt.Sprintf("server %q: %s", inv.Name, strings.TrimPrefix(inv.Reason, formatPosition(inv.Source)+": "))})
	}
	cfg.Invalid = append(cfg.Invalid, clashes...)
	slices.SortFunc(cfg.Invalid, func(a, b messages.InvalidServer) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(cfg.EnvFiles)
	cfg.EnvFiles = slices.Compact(cfg.EnvFiles)
	cfg.Diagnostics = append(cfg.Diagnostics, opts.Trust.storeDiagnostics()...)
	sortDiagnostics(cfg.Diagnostics)
	boundTexts(cfg.Diagnostics, cfg.Invalid)
	return cfg, nextGood
}

// loadOne decides what one file contributes, applying the missing, read
// error and last-good rules, and records the file's last-good entry.
func loadOne(f FileContent, path string, opts LoadOptions, lastGood, nextGood map[string]ParsedFile) (ParsedFile, []messages.Diagnostic) {
	if f.Missing {
		return ParsedFile{Path: path}, nil
	}
	var parsed ParsedFile
	if f.ReadErr != nil {
		parsed = ParsedFile{Path: path, Diagnostics: []messages.Diagnostic{{
			Position: messages.Position{Path: path, Line: 1, Column: 1},
			Severity: messages.SeverityError,
			Message: "cannot read config file: " + oneLine(f.ReadErr.Error()) +
				"; make it a readable regular file of at most 4 MiB, or remove it from the list",
		}}}
	} else {
		parsed = ParseFile(path, f.Data, opts)
	}
	if parsed.OK {
		nextGood[path] = parsed
		return parsed, parsed.Diagnostics
	}
	old, ok := lastGood[path]
	if !ok {
		return parsed, parsed.Diagnostics
	}
	nextGood[path] = old
	old = opts.Trust.recheck(old)
	keep := fmt.Sprintf("; keeping the %s last parsed from this file until it parses again", countServers(old))
	diags := make([]messages.Diagnostic, 0, len(parsed.Diagnostics)+len(old.Diagnostics))
	for _, d := range parsed.Diagnostics {
		d.Message += keep
		diags = append(diags, d)
	}
	diags = append(diags, old.Diagnostics...)
	return old, diags
}

// claimShadowed claims name for the declaration at src, or, when an earlier
// file already claimed it, reports the declaration as shadowed and returns
// true.
func claimShadowed(winner map[string]messages.Position, name string, src messages.Position, diags *[]messages.Diagnostic) bool {
	w, taken := winner[name]
	if !taken {
		winner[name] = src
		return false
	}
	*diags = append(*diags, messages.Diagnostic{
		Position: src,
		Severity: messages.SeverityWarning,
		Message: fmt.Sprintf("server %q is shadowed by the declaration at %s, which comes first in the file list; this one is ignored: rename or remove one of them",
			name, formatPosition(w)),
	})
	return true
}

// countServers describes what a last-good parse contributes, for the
// diagnostic that says it is kept.
func countServers(p ParsedFile) string {
	n := len(p.Servers) + len(p.Invalid)
	if n == 1 {
		return "1 server"
	}
	return fmt.Sprintf("%d servers", n)
}

// formatPosition renders a position as path:line:col, the form compilers use
// and editors link.
func formatPosition(p messages.Position) string {
	return fmt.Sprintf("%s:%d:%d", p.Path, p.Line, p.Column)
}

// sortDiagnostics orders diagnostics by path, line and column, then by
// severity and message so that the order is total and output is stable.
func sortDiagnostics(ds []messages.Diagnostic) {
	slices.SortStableFunc(ds, func(a, b messages.Diagnostic) int {
		return cmp.Or(
			strings.Compare(a.Path, b.Path),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column),
			strings.Compare(string(a.Severity), string(b.Severity)),
			strings.Compare(a.Message, b.Message),
		)
	})
}

// oneLine makes text fit on one diagnostic line. Messages quote
// config-supplied text with %q, so this only ever acts on error text from
// elsewhere (a read error); it is applied to every message as a guard.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
