package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
)

// inputCommand stores, removes or lists the values of VS Code inputs
// (${input:ID}) in the per-user input store, which a running mcpvisor
// watches: setting a value starts the entries that waited for it. The
// value is read from stdin (a terminal line, or a pipe), never from the
// command line, where other users could read it; no subcommand prints a
// value.
func inputCommand(args []string, stdio IO) int {
	fs := flag.NewFlagSet("input", flag.ContinueOnError)
	fs.SetOutput(stdio.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(stdio.Stderr, "usage: mcpvisor input set ID (value on stdin) | mcpvisor input unset ID | mcpvisor input list")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	store := inputStorePath(func(k string) (string, bool) { return lookupEnv(stdio, k) })
	rest := fs.Args()
	switch {
	case len(rest) == 2 && rest[0] == "set":
		return setInput(store, rest[1], stdio)
	case len(rest) == 2 && rest[0] == "unset":
		if err := ondisk.UpdateInputs(store, func(v map[string]string) { delete(v, rest[1]) }); err != nil {
			fmt.Fprintf(stdio.Stderr, "mcpvisor input: %v\n", err)
			return ExitFailed
		}
		fmt.Fprintf(stdio.Stdout, "input %q removed\n", rest[1])
		return ExitOK
	case len(rest) == 1 && rest[0] == "list":
		ids, err := ondisk.InputIDs(store)
		if err != nil {
			fmt.Fprintf(stdio.Stderr, "mcpvisor input: %v\n", err)
			return ExitFailed
		}
		if len(ids) == 0 {
			fmt.Fprintf(stdio.Stdout, "no input values stored (%s)\n", store)
		}
		for _, id := range ids {
			fmt.Fprintln(stdio.Stdout, id)
		}
		return ExitOK
	}
	fs.Usage()
	return ExitUsage
}

// setInput reads one line from stdin and stores it as the value of id.
func setInput(store, id string, stdio IO) int {
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
	if err := ondisk.UpdateInputs(store, func(v map[string]string) { v[id] = value }); err != nil {
		fmt.Fprintf(stdio.Stderr, "\nmcpvisor input set: %v\n", err)
		return ExitFailed
	}
	fmt.Fprintf(stdio.Stderr, "\n")
	fmt.Fprintf(stdio.Stdout, "input %q stored in %s\n", id, store)
	return ExitOK
}
