package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// defaultAddr is where `mcpvisor run` serves its API unless told otherwise.
const defaultAddr = "127.0.0.1:7767"

// clientCommand runs one command against a running daemon's HTTP API.
func clientCommand(ctx context.Context, name string, args []string, io IO) int {
	switch name {
	case "status":
		return statusCommand(ctx, args, io)
	case "tools":
		return toolsCommand(ctx, args, io)
	case "call":
		return callCommand(ctx, args, io)
	case "prompts":
		return promptsCommand(ctx, args, io)
	case "prompt":
		return promptCommand(ctx, args, io)
	case "resources":
		return resourcesCommand(ctx, args, io)
	case "read":
		return readCommand(ctx, args, io)
	case "resync":
		return resyncCommand(ctx, args, io)
	case "events":
		return eventsCommand(ctx, args, io)
	}
	fmt.Fprintf(io.Stderr, "mcpvisor: unknown command %q\n", name)
	return ExitUsage
}

// clientFlags are the flags every client command has.
type clientFlags struct {
	fs        *flag.FlagSet
	name      string
	addr      string
	tokenFile string
	asJSON    bool
}

// newClientFlags starts a command's flag set; usage is its synopsis after
// "mcpvisor NAME".
func newClientFlags(name, usage string, io IO) *clientFlags {
	f := &clientFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError), name: name}
	f.fs.SetOutput(io.Stderr)
	f.fs.Usage = func() {
		fmt.Fprintf(io.Stderr, "Usage: mcpvisor %s %s\n\nFlags:\n", name, usage)
		f.fs.PrintDefaults()
	}
	f.fs.StringVar(&f.addr, "addr", "", "daemon address host:port (default $MCPVISOR_ADDR, else "+defaultAddr+")")
	f.fs.StringVar(&f.tokenFile, "token-file", "", "file holding the daemon's API token (default $MCPVISOR_TOKEN, else $XDG_STATE_HOME/mcpvisor/token)")
	f.fs.BoolVar(&f.asJSON, "json", false, "print the API's JSON instead of text")
	return f
}

// parse parses args and reports the exit code to return at once (help or
// a usage error), or -1 to go on.
func (f *clientFlags) parse(args []string) int {
	if err := f.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	return -1
}

// usageError prints a one-line usage complaint and returns ExitUsage.
func (f *clientFlags) usageError(w io.Writer, format string, args ...any) int {
	fmt.Fprintf(w, "mcpvisor %s: %s (see mcpvisor %s -h)\n", f.name, fmt.Sprintf(format, args...), f.name)
	return ExitUsage
}

// client builds the API client from the flags and the environment.
func (f *clientFlags) client(io IO) (*apiClient, error) {
	addr := f.addr
	if addr == "" {
		addr, _ = io.LookupEnv("MCPVISOR_ADDR")
	}
	explicit := addr != ""
	socket := ""
	if !explicit {
		addr = defaultAddr
		// The default daemon's Unix socket comes first; no place for it
		// (neither HOME nor XDG_*): TCP only.
		socket, _ = apiSocketPath(io.LookupEnv)
	}
	token, err := clientToken(f.tokenFile, io.LookupEnv)
	if err != nil {
		return nil, err
	}
	return newAPIClient(addr, token, newDaemonDialer(socket, explicit)), nil
}

// fail prints err as the command's one-line error and returns its exit
// code: ExitNoDaemon when the daemon could not be reached, else ExitFailed.
func (f *clientFlags) fail(w io.Writer, err error) int {
	fmt.Fprintf(w, "mcpvisor %s: %v\n", f.name, err)
	var unreachable *unreachableError
	var gone *goneError
	if errors.As(err, &unreachable) || errors.As(err, &gone) {
		return ExitNoDaemon
	}
	return ExitFailed
}

// getCommand is the common part of the argument-less read commands: it
// parses the flags, GETs path into out and, with --json, prints the raw
// answer. It returns an exit code when the command is done, or -1 when the
// caller should print out.
func getCommand(ctx context.Context, name, path string, args []string, io IO, out any) int {
	f := newClientFlags(name, "[--json]", io)
	if code := f.parse(args); code >= 0 {
		return code
	}
	if f.fs.NArg() > 0 {
		return f.usageError(io.Stderr, "%s takes no arguments (got %q)", name, f.fs.Args())
	}
	c, err := f.client(io)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	defer c.close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	raw, err := c.do(ctx, "GET", path, nil, out)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	if f.asJSON {
		_, _ = io.Stdout.Write(raw)
		return ExitOK
	}
	return -1
}
