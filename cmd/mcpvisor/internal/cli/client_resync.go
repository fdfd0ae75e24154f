package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/messages"
)

// resyncCommand asks the daemon to re-read its config files and retry
// every failed server now, then prints the plan and where each server it
// started or retried ended up. The exit code is 1 if one of them is still
// failed or did not settle in time.
func resyncCommand(ctx context.Context, args []string, io IO) int {
	f := newClientFlags("resync", "[--dry-run] [--json]", io)
	dryRun := f.fs.Bool("dry-run", false, "only compute and print the plan; change nothing")
	if code := f.parse(args); code >= 0 {
		return code
	}
	if f.fs.NArg() > 0 {
		return f.usageError(io.Stderr, "resync takes no arguments (got %q)", f.fs.Args())
	}
	c, err := f.client(io)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	defer c.close()
	// The daemon bounds its own wait (30s); this only guards against a
	// daemon that never answers.
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var res httpapi.ResyncResult
	raw, err := c.do(ctx, "POST", "/api/v1/resync", httpapi.ResyncRequest{DryRun: *dryRun}, &res)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	if f.asJSON {
		_, _ = io.Stdout.Write(raw)
	} else {
		writeResync(io.Stdout, res)
	}
	if !res.Complete {
		fmt.Fprintf(io.Stderr, "mcpvisor resync: %s\n", res.Note)
		return ExitFailed
	}
	for _, o := range res.Outcomes {
		if o.State != messages.StateReady {
			fmt.Fprintf(io.Stderr, "mcpvisor resync: %s is %s\n", o.Server, o.State)
			return ExitFailed
		}
	}
	return ExitOK
}

func writeResync(w io.Writer, res httpapi.ResyncResult) {
	if res.DryRun {
		fmt.Fprintf(w, "plan for generation %d (dry run: nothing was changed):\n", res.Generation)
	} else {
		fmt.Fprintf(w, "plan for generation %d:\n", res.Generation)
	}
	var rows [][]string
	for _, st := range res.Plan {
		rows = append(rows, []string{st.Server, string(st.Action), st.Reason})
	}
	if len(rows) == 0 {
		rows = append(rows, []string{"(no servers)"})
	}
	writeTable(w, "  ", rows)
	if res.DryRun {
		return
	}
	if len(res.Outcomes) == 0 {
		fmt.Fprintln(w, "outcome: nothing to start or retry")
		return
	}
	fmt.Fprintln(w, "outcome:")
	rows = rows[:0]
	for _, o := range res.Outcomes {
		rows = append(rows, []string{o.Server, string(o.State), wholeLine(o.Error)})
	}
	writeTable(w, "  ", rows)
}
