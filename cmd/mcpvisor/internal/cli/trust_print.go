package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// printTrustPreview shows what a file would do, entry by entry, as
// written (config.EntryPreview): every field, known or not, with strings
// quoted exactly (a hostile file cannot hide text behind terminal
// escapes); the commands that run, a headersHelper's included; the
// variables and inputs each entry reads, by name, and where they come
// from; where an OAuth client secret goes; and the user's servers an
// entry would replace.
func printTrustPreview(w io.Writer, d config.FileTrust, before config.FileApproval, previews []config.EntryPreview) {
	state := "not approved"
	if d.Recorded {
		state = fmt.Sprintf("changed since it was approved on %s: %d of its servers are untrusted",
			before.ApprovedAt.UTC().Format("2006-01-02 15:04 UTC"), d.Untrusted())
	}
	fmt.Fprintf(w, "%s: %s (sha256 %s)\n", d.Path, state, d.SHA256)
	trust := make(map[string]config.EntryTrust, len(d.Entries))
	for _, e := range d.Entries {
		trust[e.Name] = e
	}
	if len(previews) == 0 {
		fmt.Fprintln(w, "  (no servers)")
	}
	scope := config.ProjectInputScope(config.InputProjectDir(d.Path))
	for _, p := range previews {
		e := trust[p.Name]
		status := "approved, unchanged"
		if !e.Trusted {
			status = "untrusted: " + e.Why
		}
		typ := p.Type
		if typ == "" {
			typ = "unknown type"
		}
		fmt.Fprintf(w, "\n  %s  %s  (%s)\n", quoteIfNeeded(p.Name), quoteIfNeeded(typ), status)
		writeTable(w, "      ", previewRows(p, scope, d.Path))
	}
	fmt.Fprintln(w)
}

// previewRows are the rows of one entry's preview.
func previewRows(p config.EntryPreview, scope config.InputScope, path string) [][]string {
	var rows [][]string
	add := func(k, v string) { rows = append(rows, []string{k, v}) }
	for _, l := range p.Lines {
		add(l.Label, l.Text)
	}
	if len(p.Variables) > 0 {
		add("reads", strings.Join(p.Variables, ", ")+" (from your environment; values hidden)")
	}
	for _, id := range p.Inputs {
		add("reads input", fmt.Sprintf("%s (from %s, else the values stored for %s: mcpvisor input set %s%s)",
			quoteIfNeeded(id), config.InputEnvName(id), scope, scope.SetFlag(), quoteArg(id)))
	}
	for _, r := range p.Replaces {
		add("warning", fmt.Sprintf("replaces your server %s from %s", quoteIfNeeded(r.Name), quoteArg(r.Path)))
	}
	if p.Odd {
		add("note", "some fields are not what mcpvisor expects: see mcpvisor check "+quoteArg(path))
	}
	if len(rows) == 0 {
		add("(nothing)", "the entry sets no field")
	}
	return rows
}

// quoteIfNeeded leaves plain names as they are and quotes anything else.
func quoteIfNeeded(s string) string {
	for _, c := range s {
		if !(c == '_' || c == '-' || c == '.' || c == '/' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return strconv.Quote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}

// quoteArg quotes a path for the shell commands mcpvisor suggests.
func quoteArg(p string) string { return config.ShellQuote(p) }

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
