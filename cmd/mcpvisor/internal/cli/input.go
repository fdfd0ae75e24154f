package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// inputCommand stores, removes or lists the values of VS Code inputs
// (${input:ID}) in the input store, which a running mcpvisor watches:
// setting a value starts the entries that waited for it. The value is
// read from stdin (a terminal line, or a pipe), never from the command
// line, where other users could read it; no subcommand prints a value.
//
// Each value is stored for a scope (config.InputStore): by default the
// user's own config files; with --project DIR the project files of DIR
// only; with --all-projects every file, every project's included.
func inputCommand(args []string, stdio IO) int {
	fs := flag.NewFlagSet("input", flag.ContinueOnError)
	fs.SetOutput(stdio.Stderr)
	project := fs.String("project", "", "store for the project files of this directory only (.mcp.json, .vscode/mcp.json, …), which read no other values")
	allProjects := fs.Bool("all-projects", false, "store for every config file, every project's included: only a value you would give any repository you open")
	fs.Usage = func() {
		fmt.Fprintln(stdio.Stderr, "usage: mcpvisor input set [--project DIR | --all-projects] ID (value on stdin) | mcpvisor input unset [--project DIR | --all-projects] ID | mcpvisor input list")
		fs.PrintDefaults()
	}
	// Flags go before or after the subcommand.
	err := fs.Parse(args)
	rest := fs.Args()
	if err == nil && len(rest) > 0 {
		err = fs.Parse(rest[1:])
		rest = append(rest[:1:1], fs.Args()...)
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	lookup := func(k string) (string, bool) { return lookupEnv(stdio, k) }
	store := inputStorePath(lookup)
	var scope config.InputScope
	switch {
	case *project != "" && *allProjects:
		fmt.Fprintln(stdio.Stderr, "mcpvisor input: --project and --all-projects name different scopes: give one")
		return ExitUsage
	case *allProjects:
		scope.Shared = true
	case *project != "":
		scope = config.ProjectInputScope(config.ResolvePaths([]string{*project}, workdirOr(""), homeDir(lookup))[0])
	}
	switch {
	case len(rest) == 2 && rest[0] == "set":
		return setInput(store, scope, rest[1], stdio)
	case len(rest) == 2 && rest[0] == "unset":
		if err := ondisk.UpdateInputs(store, scope, func(v map[string]string) { delete(v, rest[1]) }); err != nil {
			fmt.Fprintf(stdio.Stderr, "mcpvisor input: %v\n", err)
			return ExitFailed
		}
		fmt.Fprintf(stdio.Stdout, "input %q removed from the values for %s\n", rest[1], scope)
		return ExitOK
	case len(rest) == 1 && rest[0] == "list" && *project == "" && !*allProjects:
		return listInputs(store, stdio)
	}
	fs.Usage()
	return ExitUsage
}

// listInputs lists the stored ids, never a value: those of the user's
// scope as they are, the others followed by the flag that names their
// scope.
func listInputs(path string, stdio IO) int {
	store, err := ondisk.ReadInputs(path)
	if err != nil {
		fmt.Fprintf(stdio.Stderr, "mcpvisor input: %v\n", err)
		return ExitFailed
	}
	var lines []string
	add := func(scope config.InputScope) {
		for _, id := range store.IDs(scope) {
			lines = append(lines, strings.TrimSpace(quoteIfNeeded(id)+" "+scope.SetFlag()))
		}
	}
	add(config.InputScope{})
	add(config.InputScope{Shared: true})
	for _, dir := range store.ProjectDirs() {
		add(config.ProjectInputScope(dir))
	}
	if len(lines) == 0 {
		fmt.Fprintf(stdio.Stdout, "no input values stored (%s)\n", path)
	}
	for _, l := range lines {
		fmt.Fprintln(stdio.Stdout, l)
	}
	return ExitOK
}

// setInput reads one line from stdin and stores it as the value of id
// for scope.
func setInput(store string, scope config.InputScope, id string, stdio IO) int {
	if strings.TrimSpace(id) == "" {
		fmt.Fprintln(stdio.Stderr, "mcpvisor input set: the input id is empty")
		return ExitUsage
	}
	fmt.Fprintf(stdio.Stderr, "value of input %q (one line, not echoed back): ", id)
	line, err := bufio.NewReader(stdio.Stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stdio.Stderr, "\nmcpvisor input set: read the value: %v\n", err)
		return ExitFailed
	}
	value := strings.TrimRight(line, "\r\n")
	if value == "" && errors.Is(err, io.EOF) && line == "" {
		fmt.Fprintln(stdio.Stderr, "\nmcpvisor input set: no value on stdin: type it, or pipe it in")
		return ExitUsage
	}
	if err := ondisk.UpdateInputs(store, scope, func(v map[string]string) { v[id] = value }); err != nil {
		fmt.Fprintf(stdio.Stderr, "\nmcpvisor input set: %v\n", err)
		return ExitFailed
	}
	fmt.Fprintf(stdio.Stderr, "\n")
	fmt.Fprintf(stdio.Stdout, "input %q stored in %s, for %s\n", id, store, scope)
	return ExitOK
}
