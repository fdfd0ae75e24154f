package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// checkCommand validates config files without starting any server: it
// prints every diagnostic and exits 1 if any is an error.
func checkCommand(args []string, io IO) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(io.Stderr)
	asJSON := fs.Bool("json", false, `print {"diagnostics": [...]} as JSON`)
	workdir := fs.String("workdir", "", "the project directory, whose .mcp.json is judged as run judges it: untrusted until approved (default: current directory)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(io.Stderr, "mcpvisor check: name at least one config file, e.g. mcpvisor check .mcp.json")
		return ExitUsage
	}
	lookup := func(k string) (string, bool) { return lookupEnv(io, k) }
	wd, home := workdirOr(*workdir), homeDir(lookup)
	paths := reconciler.ResolvePaths(fs.Args(), wd, home)
	trust := checkTrustPolicy(wd, home, lookup)
	cfg, _ := reconciler.Load(actors.ReadConfigFiles(paths), reconciler.LoadOptions{LookupEnv: io.LookupEnv, Home: home, Trust: trust}, nil)
	diags := cfg.Diagnostics
	if diags == nil {
		diags = []messages.Diagnostic{}
	}
	if *asJSON {
		enc := json.NewEncoder(io.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"diagnostics": diags})
	} else {
		for _, d := range diags {
			fmt.Fprintln(io.Stdout, formatDiagnostic(d))
		}
		printUntrustedFiles(io.Stdout, cfg.Invalid)
	}
	for _, d := range diags {
		if d.Severity == messages.SeverityError {
			return ExitFailed
		}
	}
	if !*asJSON {
		fmt.Fprintf(io.Stdout, "%d servers, no errors\n", len(cfg.Servers))
	}
	return ExitOK
}
