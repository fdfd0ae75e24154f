package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// statusCommand prints the daemon's fleet as a table, or its JSON.
func statusCommand(ctx context.Context, args []string, io IO) int {
	var st messages.Status
	if code := getCommand(ctx, "status", "/api/v1/status", args, io, &st); code >= 0 {
		return code
	}
	writeStatus(io.Stdout, st, time.Now())
	return ExitOK
}

// writeStatus renders st as an aligned table, then the generations and
// every config diagnostic. now is what AGE is measured against.
func writeStatus(w io.Writer, st messages.Status, now time.Time) {
	rows := [][]string{{"NAME", "PREFIX", "TRANSPORT", "STATE", "TOOLS", "RESTARTS", "AGE", "LAST ERROR"}}
	for _, s := range st.Servers {
		transport := string(s.Transport)
		if transport == "" {
			transport = "-"
		}
		rows = append(rows, []string{s.Name, prefixColumn(s), transport, string(s.State), catalogCell(s), strconv.Itoa(s.Restarts), age(s.Since, now), lastError(s, now)})
	}
	writeTable(w, "", rows)
	if len(st.Servers) == 0 {
		fmt.Fprintln(w, "(no servers configured)")
	}
	fmt.Fprintf(w, "\ngeneration %d, observed %d\n", st.Generation, st.ObservedGeneration)
	for _, d := range st.ConfigErrors {
		fmt.Fprintln(w, formatDiagnostic(d))
	}
}

// prefixColumn shows what a server's tools are exposed under: its prefix,
// "(bare)" for the empty prefix of a server that has a spec, "-" for an
// entry that has none (invalid, untrusted).
func prefixColumn(s messages.ServerStatus) string {
	switch {
	case s.Prefix != "":
		return s.Prefix
	case s.Transport == "":
		return "-"
	}
	return "(bare)"
}

// lastError is a server's error or warning, whole, on one line, with when
// it retries next. It is the table's last column, so its length misaligns
// nothing; cutting it once hid the part of a failure that said what to fix.
func lastError(s messages.ServerStatus, now time.Time) string {
	text := s.LastError
	if text == "" && s.Warning != "" {
		text = "warning: " + s.Warning
	}
	text = wholeLine(text)
	if s.State == messages.StateFailed && !s.NextRetry.IsZero() {
		text += fmt.Sprintf(" (attempt %d, retry in %s)", s.Attempt, shortDuration(s.NextRetry.Sub(now)))
	}
	return text
}

// oneLine keeps the first line of s, at most limit runes.
func oneLine(s string, limit int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit-1]) + "…"
	}
	return s
}

// wholeLine is s on one line, nothing cut: its non-blank lines, trimmed,
// joined by "; ".
func wholeLine(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// age is how long ago since was, "-" if never.
func age(since, now time.Time) string {
	if since.IsZero() {
		return "-"
	}
	return shortDuration(now.Sub(since))
}

// shortDuration renders d as kubectl does: 45s, 12m, 3h4m, 2d3h.
func shortDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd%dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// catalogCell is the TOOLS column: the tool count, then the rest of the
// catalog when the server has any (7 +2p 3r 1t: prompts, resources,
// resource templates).
func catalogCell(s messages.ServerStatus) string {
	cell := strconv.Itoa(s.Tools)
	if s.Prompts+s.Resources+s.Templates == 0 {
		return cell
	}
	return fmt.Sprintf("%s +%dp %dr %dt", cell, s.Prompts, s.Resources, s.Templates)
}
