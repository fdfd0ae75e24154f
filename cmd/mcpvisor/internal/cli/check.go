package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// checkCommand validates config files without starting any server: it
// prints every diagnostic, what each entry would do, a one-line summary
// per file, and exits 1 if any diagnostic is an error.
func checkCommand(args []string, io IO) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(io.Stderr)
	asJSON := fs.Bool("json", false, `print {"diagnostics": [...], "servers": [...], "summary": {...}} as JSON`)
	verbose := fs.Bool("verbose", false, "also show notes: fields of other tools that were ignored or mapped")
	workdir := fs.String("workdir", "", "the project directory, whose .mcp.json is judged as run judges it: untrusted until approved (default: current directory)")
	discover := fs.Bool("discover", false, "also check the MCP config files of the tools installed for this user, judging project files as run --discover does")
	workspace := fs.String("workspace", "", "the folder ${workspaceFolder} names in VS Code config files (default: the folder holding .vscode/, else the config file's folder)")
	cacheDir := fs.String("cache-dir", "", "directory of the catalog cache, whose tool and prompt names are judged against Claude Code's 64-character limit (default $XDG_CACHE_HOME/mcpvisor, else ~/.cache/mcpvisor; - ignores it)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() == 0 && !*discover {
		fmt.Fprintln(io.Stderr, "mcpvisor check: name at least one config file, e.g. mcpvisor check .mcp.json, or use --discover")
		return ExitUsage
	}
	lookup := func(k string) (string, bool) { return lookupEnv(io, k) }
	wd, home := workdirOr(*workdir), homeDir(lookup)
	paths := config.ResolvePaths(fs.Args(), wd, home)
	trust := checkTrustPolicy(wd, home, lookup)
	var found discovered
	if *discover {
		found = discoverFiles(wd, lookup)
		paths = append(paths, found.paths...)
		for _, p := range found.project {
			trust.NeedApproval[p] = true
		}
	}
	opts := config.LoadOptions{LookupEnv: io.LookupEnv, Home: home, Trust: trust,
		Workspace: *workspace, FileExists: fileExists, ReadFile: ondisk.ReadEnvFile, ProjectDir: wd,
		Commands: commandCheck()}
	if store, err := ondisk.ReadInputs(inputStorePath(lookup)); err == nil {
		opts.Inputs = store
	} else {
		fmt.Fprintf(io.Stderr, "mcpvisor check: %v; entries with inputs are judged without stored values\n", err)
	}
	cfg, _ := config.Load(ondisk.ReadConfigFiles(paths), opts, nil)
	if *cacheDir == "" {
		*cacheDir = actors.DefaultCacheDir(lookup, home)
	}
	cfg.Diagnostics = append(cfg.Diagnostics, nameWarnings(cfg.Servers, actors.PeekCatalogCache(*cacheDir))...)
	report := newCheckReport(paths, cfg, *verbose)
	if *discover {
		report.Discovered = []discoveredFile{}
		for _, p := range found.paths {
			scope := config.ScopeUser
			if slices.Contains(found.project, p) {
				scope = config.ScopeProject
			}
			report.Discovered = append(report.Discovered, discoveredFile{Path: p, Tool: found.tools[p], Scope: scope})
		}
	}
	if *asJSON {
		enc := json.NewEncoder(io.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(report)
	} else {
		report.print(io.Stdout, cfg.Invalid)
	}
	if report.Summary.Errors > 0 {
		return ExitFailed
	}
	return ExitOK
}

// checkReport is what check says, and the shape of check --json.
type checkReport struct {
	// Discovered lists the files --discover found, in precedence order.
	Discovered  []discoveredFile      `json:"discovered,omitempty"`
	Diagnostics []messages.Diagnostic `json:"diagnostics"`
	// Notes are present with --verbose only.
	Notes   []messages.Diagnostic `json:"notes,omitempty"`
	Servers []checkEntry          `json:"servers"`
	Summary checkSummary          `json:"summary"`
}

// discoveredFile is a file --discover found.
type discoveredFile struct {
	Path  string       `json:"path"`
	Tool  string       `json:"tool"`
	Scope config.Scope `json:"scope"`
}

// checkEntry is one server as mcpvisor would run it: the state it would
// be in (starting for an entry that runs), its transport and its exposed
// prefix, or why it does not run.
type checkEntry struct {
	Server    string             `json:"server"`
	File      string             `json:"file"`
	Line      int                `json:"line"`
	State     messages.State     `json:"state"`
	Transport messages.Transport `json:"transport,omitempty"`
	Prefix    *string            `json:"prefix,omitempty"`
	Reason    string             `json:"reason,omitempty"`
}

type checkSummary struct {
	Files []checkFile `json:"files"`
	// Servers counts every entry; Valid those that would run or are
	// disabled (the rest are invalid, untrusted or need input).
	Servers  int `json:"servers"`
	Valid    int `json:"valid"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// checkFile counts one file's entries by the state they would be in.
type checkFile struct {
	Path    string                 `json:"path"`
	Servers int                    `json:"servers"`
	States  map[messages.State]int `json:"states"`
}

func newCheckReport(paths []string, cfg config.Loaded, verbose bool) checkReport {
	r := checkReport{Diagnostics: cfg.Diagnostics, Servers: []checkEntry{}}
	if r.Diagnostics == nil {
		r.Diagnostics = []messages.Diagnostic{}
	}
	if verbose {
		r.Notes = cfg.Notes
	}
	for _, s := range cfg.Servers {
		state := messages.StateStarting
		if s.Disabled {
			state = messages.StateDisabled
		}
		prefix := s.Prefix
		r.Servers = append(r.Servers, checkEntry{Server: s.Name, File: s.Source.Path, Line: s.Source.Line, State: state, Transport: s.Transport, Prefix: &prefix})
	}
	for _, inv := range cfg.Invalid {
		r.Servers = append(r.Servers, checkEntry{Server: inv.Name, File: inv.Source.Path, Line: inv.Source.Line, State: inv.EntryState(), Reason: inv.Reason})
	}
	slices.SortFunc(r.Servers, func(a, b checkEntry) int { return strings.Compare(a.Server, b.Server) })
	for _, d := range cfg.Diagnostics {
		switch d.Severity {
		case messages.SeverityError:
			r.Summary.Errors++
		case messages.SeverityWarning:
			r.Summary.Warnings++
		}
	}
	r.Summary.Servers, r.Summary.Valid = len(r.Servers), len(cfg.Servers)
	for _, p := range paths {
		if slices.ContainsFunc(r.Summary.Files, func(f checkFile) bool { return f.Path == p }) {
			continue
		}
		f := checkFile{Path: p, States: map[messages.State]int{}}
		for _, e := range r.Servers {
			if e.File == p {
				f.Servers++
				f.States[e.State]++
			}
		}
		r.Summary.Files = append(r.Summary.Files, f)
	}
	return r
}

// print writes the report for people: diagnostics (and notes), the
// entries that do not run as they are, a line per file, and the verdict.
func (r checkReport) print(w io.Writer, invalid []messages.InvalidServer) {
	for _, f := range r.Discovered {
		fmt.Fprintf(w, "found %s (%s, %s)\n", f.Path, f.Tool, f.Scope)
	}
	if r.Discovered != nil && len(r.Discovered) == 0 {
		fmt.Fprintln(w, "found no MCP config file of a known tool")
	}
	for _, d := range r.Diagnostics {
		fmt.Fprintln(w, formatDiagnostic(d))
	}
	for _, d := range r.Notes {
		fmt.Fprintln(w, formatDiagnostic(d))
	}
	printUntrustedFiles(w, invalid)
	for _, f := range r.Summary.Files {
		fmt.Fprintf(w, "%s: %s\n", f.Path, fileLine(f))
	}
	if r.Summary.Errors == 0 {
		fmt.Fprintf(w, "%d servers, no errors\n", r.Summary.Valid)
	}
}

// fileLine summarises one file: "3 servers: 2 starting, 1 needs-input".
func fileLine(f checkFile) string {
	if f.Servers == 0 {
		return "no servers"
	}
	states := make([]string, 0, len(f.States))
	for _, st := range slices.Sorted(maps.Keys(f.States)) {
		states = append(states, fmt.Sprintf("%d %s", f.States[st], st))
	}
	return plural(f.Servers, "server") + ": " + strings.Join(states, ", ")
}

// commandCheck makes check say whether each stdio server's command will
// be found when mcpvisor starts it from here: a relative command of an
// entry without cwd resolves against the working directory of whoever
// runs mcpvisor, here check's own (not --workdir, which names the project
// whose files are judged).
func commandCheck() *config.CommandCheck {
	here, _ := os.Getwd()
	return &config.CommandCheck{Executable: ondisk.Executable, WorkingDir: here}
}

// fileExists answers config.LoadOptions.FileExists.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
