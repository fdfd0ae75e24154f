package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpvisor/mcpvisor/messages"
)

// printer renders events as one human-readable line each.
type printer struct {
	w io.Writer
}

func newPrinter(w io.Writer) *printer { return &printer{w: w} }

func (p *printer) print(env *messages.Envelope) {
	ts := env.Time.Local().Format("15:04:05.000")
	switch ev := env.Event.(type) {
	case *messages.ConfigLoaded:
		if !ev.Changed && len(ev.Diagnostics) == 0 {
			return
		}
		fmt.Fprintf(p.w, "%s  config      generation %d, %d servers\n", ts, ev.Generation, ev.Servers)
		for _, d := range ev.Diagnostics {
			fmt.Fprintf(p.w, "%s  config      %s\n", ts, formatDiagnostic(d))
		}
	case *messages.ServerStateChanged:
		var extra []string
		if ev.PID > 0 {
			extra = append(extra, fmt.Sprintf("pid %d", ev.PID))
		}
		if ev.Error != "" {
			extra = append(extra, "error: "+ev.Error)
		}
		line := fmt.Sprintf("%s  %-10s  %-8s → %-8s  %s", ts, ev.Server, ev.From, ev.To, ev.Reason)
		if len(extra) > 0 {
			line += "  (" + strings.Join(extra, ", ") + ")"
		}
		fmt.Fprintln(p.w, line)
	case *messages.ToolsChanged:
		fmt.Fprintf(p.w, "%s  %-10s  tools: %d", ts, ev.Server, len(ev.Tools))
		if len(ev.Added) > 0 {
			fmt.Fprintf(p.w, "  +%s", strings.Join(ev.Added, " +"))
		}
		if len(ev.Removed) > 0 {
			fmt.Fprintf(p.w, "  -%s", strings.Join(ev.Removed, " -"))
		}
		if len(ev.Changed) > 0 {
			fmt.Fprintf(p.w, "  ~%s", strings.Join(ev.Changed, " ~"))
		}
		fmt.Fprintln(p.w)
	case *messages.WatcherDegraded:
		fmt.Fprintf(p.w, "%s  watcher     degraded: %s\n", ts, ev.Reason)
	case *messages.SupervisorFailed:
		fmt.Fprintf(p.w, "%s  supervisor  FAILED: the %s actor failed: %s\n", ts, ev.Actor, ev.Reason)
	case *messages.FeedTruncated:
		fmt.Fprintf(p.w, "%s  events      %d..%d not shown: %s\n", ts, ev.Since+1, ev.Next-1, ev.Reason)
	}
}

// formatDiagnostic is the compiler-style file:line:col: severity: message.
func formatDiagnostic(d messages.Diagnostic) string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", d.Path, d.Line, d.Column, d.Severity, d.Message)
}
