package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
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
	fs.StringVar(&f.tokenFile, "token-file", "", "file holding the API token every request must bear (default $MCPVISOR_TOKEN, else $XDG_STATE_HOME/mcpvisor/token, created on first start)")
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

func runCommand(ctx context.Context, args []string, io IO) int {
	f, err := parseRunFlags(args, io)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor run: %v\n", err)
		return ExitUsage
	}
	log, err := newLogger(io.Stderr, f.logLevel, f.logFormat)
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor run: %v\n", err)
		return ExitUsage
	}
	defer func() { _ = log.Sync() }()
	tp, flushTraces, err := startTracing(ctx, "run", io)
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor run: %v\n", err)
		return ExitUsage
	}
	defer flushTraces() // after the Supervisor closed: its last spans have ended
	var token apiToken
	if apiOn(f.listen) {
		if token, err = serverToken(f.tokenFile, io.LookupEnv); err == nil {
			err = httpapi.CheckOrigins(f.allowOrigins)
		}
		if err != nil {
			fmt.Fprintf(io.Stderr, "mcpvisor run: %v\n", err)
			return ExitUsage
		}
	}
	// Listen before starting any server: a taken port fails fast.
	listener, code := listenAPI(f.listen, token.value, io)
	if code != ExitOK {
		return code
	}
	opts := f.options(log, io.LookupEnv)
	opts.Environ = serverEnviron
	opts.Secrets = []string{token.value}
	// Servers' log messages become server.log events: ask those that
	// support logging/setLevel for info and above.
	opts.LogLevel = "info"
	opts.TracerProvider = tp
	sup, err := actors.Start(opts)
	if err != nil {
		if listener != nil {
			_ = listener.Close()
		}
		fmt.Fprintf(io.Stderr, "mcpvisor run: %v\n", err)
		return ExitFailed
	}
	// From the first event: the printer shows everything since Start.
	feed := sup.Follow(0, 1024)
	fmt.Fprintf(io.Stdout, "mcpvisor: supervising %s (Ctrl-C to stop)\n", strings.Join(f.configs, ", "))
	if listener != nil {
		fmt.Fprintf(io.Stdout, "mcpvisor: HTTP API on http://%s (bearer token in %s)\n", listener.Addr(), token.from)
	}
	printed := printEvents(feed, io)

	// The API is shut down before the supervisor: its event streams end
	// and its in-flight calls are cancelled first.
	apiCtx, stopAPI := context.WithCancel(ctx)
	defer stopAPI()
	served := make(chan error, 1) // written only if the API runs
	if listener != nil {
		api, err := httpapi.New(httpapi.Options{Fleet: httpapi.FleetOf(sup), Token: token.value, AllowOrigins: f.allowOrigins, Logger: log})
		if err != nil { // CheckOrigins accepted them: not expected
			_ = listener.Close()
			served <- err
		} else {
			go func() { served <- api.Serve(apiCtx, listener) }()
		}
	}
	var apiErr error
	select {
	case <-ctx.Done():
		fmt.Fprintln(io.Stdout, "mcpvisor: stopping every server")
		stopAPI()
		if listener != nil {
			apiErr = <-served
		}
	case apiErr = <-served: // Serve returns early only on failure
		fmt.Fprintln(io.Stdout, "mcpvisor: the HTTP API failed; stopping every server")
	case <-sup.Done(): // a core actor failed: the servers are stopping
		stopAPI()
		if listener != nil {
			apiErr = <-served
		}
	}
	failed := sup.Err() // nil unless a core actor failed
	closeErr := sup.Close()
	<-printed // the feed ends after the supervisor's last event
	feed.Close()
	if failed != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor run: %v\n", failed)
		return ExitFailed
	}
	if err := errors.Join(apiErr, closeErr); err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor run: %v\n", err)
		return ExitFailed
	}
	return ExitOK
}

// apiOn reports whether --listen asks for the API.
func apiOn(addr string) bool { return addr != "" && addr != "off" }

// listenAPI opens the API's listener; nil when the API is off. It refuses
// a non-loopback address without a long enough token.
func listenAPI(addr, token string, io IO) (net.Listener, int) {
	if !apiOn(addr) {
		return nil, ExitOK
	}
	if err := httpapi.CheckExposure(addr, token); err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor run: %v\n", err)
		return nil, ExitUsage
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor run: cannot serve the HTTP API: %v: is another `mcpvisor run` using it? pass --listen HOST:PORT, or --listen off\n", err)
		return nil, ExitFailed
	}
	return l, ExitOK
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
