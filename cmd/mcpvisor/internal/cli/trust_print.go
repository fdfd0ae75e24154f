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

// printTrustPreview shows what a file would run, entry by entry, as
// written: commands, arguments, working directories and URLs quoted
// exactly (a hostile file cannot hide text behind terminal escapes), the
// variables each entry reads by name, and only the names of env variables
// and headers, whose values stay hidden.
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
		var rows [][]string
		add := func(k, v string) { rows = append(rows, []string{k, v}) }
		if p.Command != "" {
			add("command", strconv.Quote(p.Command))
		}
		if len(p.Args) > 0 {
			add("args", quoteAll(p.Args))
		}
		if p.Cwd != "" {
			add("cwd", strconv.Quote(p.Cwd))
		}
		if p.URL != "" {
			add("url", strconv.Quote(p.URL))
		}
		if len(p.EnvNames) > 0 {
			add("env", namesOnly(p.EnvNames))
		}
		if len(p.HeaderNames) > 0 {
			add("headers", namesOnly(p.HeaderNames))
		}
		if len(p.Variables) > 0 {
			add("reads", strings.Join(p.Variables, ", ")+" (from your environment; values hidden)")
		}
		if p.Disabled {
			add("disabled", "true")
		}
		if p.Odd {
			add("note", "some fields are not what mcpvisor expects: see mcpvisor check "+quoteArg(d.Path))
		}
		writeTable(w, "      ", rows)
	}
	fmt.Fprintln(w)
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, " ")
}

func namesOnly(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIfNeeded(n)
	}
	return strings.Join(q, ", ") + " (values hidden)"
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
