package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/journal"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

type runFlags struct {
	configFlags
	listen       string
	tokenFile    string
	allowOrigins stringList
}

func parseRunFlags(args []string, io IO) (runFlags, error) {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Stderr)
	f.register(fs)
	fs.StringVar(&f.listen, "listen", defaultAddr, `serve the HTTP API on host:port ("" or off: no API; port 0: any free port, printed at startup)`)
	fs.StringVar(&f.tokenFile, "token-file", "", "file holding the API token every request must bear (default $MCPVISOR_TOKEN, else $XDG_STATE_HOME/mcpvisor/token, a fresh one at each start unless a live daemon uses it; at least 32 bytes)")
	fs.Var(&f.allowOrigins, "allow-origin", "a browser origin (scheme://host[:port]) whose pages may use the API (repeatable; default none)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("run takes no arguments (got %q); pass config files with --config", fs.Args())
	}
	f.defaults(io.LookupEnv)
	return f, nil
}

// runCommand supervises the config files' servers in-process, prints
// every event and serves the HTTP API, until a signal (ctx), a failed
// supervisor or a failed API.
func runCommand(ctx context.Context, args []string, io IO) int {
	f, err := parseRunFlags(args, io)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		return usageError(io, "run", err)
	}
	log, tp, done, code := prelude(ctx, "run", f.configFlags, io)
	if code != ExitOK {
		return code
	}
	defer done()
	// Listen before starting any server: a taken port fails fast.
	api, code := openAPI(f, log, io)
	defer api.token.release()
	if code != ExitOK {
		return code
	}
	opts := f.options(log, io.LookupEnv)
	opts.Environ, opts.Secrets, opts.TracerProvider = serverEnviron, []string{api.token.value}, tp
	// Servers' log messages become server.log events: ask those that
	// support logging/setLevel for info and above.
	opts.LogLevel = "info"
	stopKeeper := startKeeper("run", &opts, io)
	defer stopKeeper() // after the Supervisor's Close: every group is gone
	sup, err := actors.Start(opts)
	if err != nil {
		api.close()
		return finalCode(io, "run", err)
	}
	// From the first event: the printer shows everything since Start.
	feed := sup.Follow(0, 1024)
	fmt.Fprintf(io.Stdout, "mcpvisor: supervising %s (Ctrl-C to stop)\n", strings.Join(f.configs, ", "))
	api.announce(io)
	printed := printEvents(feed, io)
	apiErr := api.serveUntil(ctx, sup, io)
	failed := sup.Err() // nil unless a core actor failed
	closeErr := sup.Close()
	<-printed // the feed ends after the supervisor's last event
	feed.Close()
	return finalCode(io, "run", failed, apiErr, closeErr)
}

// printEvents prints, on a goroutine, every event feed delivers. The
// goroutine ends, closing the returned channel, when the feed does (the
// supervisor closed and its last events were printed).
func printEvents(feed *journal.Feed, io IO) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		p := newPrinter(io.Stdout)
		for env := range feed.C {
			p.print(env)
		}
	}()
	return done
}

// serverEnviron is the environment stdio servers inherit: the daemon's,
// without the API token, which would let any server call every tool.
func serverEnviron() []string {
	env := os.Environ()
	return slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "MCPVISOR_TOKEN=") })
}
