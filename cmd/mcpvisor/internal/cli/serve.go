package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// defaultListen is serve's HTTP address when --listen is not given.
const defaultListen = "127.0.0.1:8931"

// parentEnv is set in every server's environment to name the gateway
// (mcpvisor-serve-PID) that started it.
const parentEnv = "MCPVISOR_SERVE_PID"

func lookupEnv(io IO, name string) (string, bool) {
	if io.LookupEnv == nil {
		return os.LookupEnv(name)
	}
	return io.LookupEnv(name)
}

type serveFlags struct {
	configFlags
	transport    string
	listen       string
	tokenFile    string
	noAuth       bool
	allowOrigins stringList
	names        gateway.Names
	// sessionTimeout and maxSessions bound the HTTP gateway's sessions.
	sessionTimeout time.Duration
	maxSessions    int
	// startupWait bounds how long the first lists wait for the first
	// connect wave.
	startupWait time.Duration
}

func parseServeFlags(args []string, io IO) (serveFlags, error) {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Stderr)
	f.register(fs)
	fs.StringVar(&f.transport, "transport", "stdio", "how MCP clients reach the gateway: stdio (launched by the client) or http (streamable HTTP at /mcp)")
	fs.StringVar(&f.listen, "listen", defaultListen, "address for HTTP (implies --transport http); loopback only (localhost, 127.0.0.1, [::1]); port 0 picks a free one")
	fs.StringVar(&f.tokenFile, "token-file", "", "for --transport http: file holding the token every request must bear (default $MCPVISOR_TOKEN, else $XDG_STATE_HOME/mcpvisor/token, created on first start)")
	fs.BoolVar(&f.noAuth, "no-auth", false, "for --transport http: take requests without a token (any local user can then call every tool)")
	names := fs.String("names", string(gateway.NamesPrefixed), "how tools and prompts are named: prefixed (prefix__tool: the server's exposed prefix, which status shows) or bare (as each server names them; of two servers with one name, the first in config order wins)")
	fs.Var(&f.allowOrigins, "allow-origin", "for --transport http: a browser origin (scheme://host[:port]) whose pages may use the gateway (repeatable; default none)")
	fs.DurationVar(&f.startupWait, "startup-wait", gateway.DefaultStartupWait, "answer the first tools/list, prompts/list and resources/list once every server has started or failed, or after this long, whichever is first (0: at once)")
	fs.DurationVar(&f.sessionTimeout, "session-timeout", gateway.DefaultSessionTimeout, "for --transport http: end a client session with no request in flight for this long (0: never)")
	fs.IntVar(&f.maxSessions, "max-sessions", gateway.DefaultMaxSessions, "for --transport http: refuse new client sessions (503) while this many are live (0: no limit)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("serve takes no arguments (got %q); pass config files with --config", fs.Args())
	}
	if err := listenImpliesHTTP(fs, &f); err != nil {
		return f, err
	}
	if f.sessionTimeout < 0 || f.maxSessions < 0 || f.startupWait < 0 {
		return f, errors.New("--startup-wait, --session-timeout and --max-sessions cannot be negative (0 turns each off)")
	}
	var err error
	if f.names, err = gateway.ParseNames(*names); err != nil {
		return f, fmt.Errorf("--names: %w", err)
	}
	switch f.transport {
	case "stdio":
	case "http":
		if err := gateway.CheckLoopback(f.listen); err != nil {
			return f, err
		}
	default:
		return f, fmt.Errorf("--transport %q: use stdio or http", f.transport)
	}
	f.defaults(func(k string) (string, bool) { return lookupEnv(io, k) })
	return f, nil
}

// httpOptions are the gateway's HTTP options from the flags. A flag's 0
// means off, which HTTPOptions spells negative (its zero is the default).
func (f serveFlags) httpOptions(token string) gateway.HTTPOptions {
	o := gateway.HTTPOptions{Token: token, NoAuth: f.noAuth, AllowOrigins: f.allowOrigins,
		SessionTimeout: f.sessionTimeout, MaxSessions: f.maxSessions}
	if o.SessionTimeout == 0 {
		o.SessionTimeout = -1
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = -1
	}
	return o
}

// homeOr is home, or the user's home directory when home is empty (as
// actors.Options defaults it).
func homeOr(home string) string {
	if home != "" {
		return home
	}
	h, _ := os.UserHomeDir()
	return h
}

// listenImpliesHTTP makes --listen alone mean --transport http: an
// address only makes sense for HTTP, and serving stdio instead would leave
// whoever asked for the address waiting on a port nobody listens on.
// --listen with an explicit --transport stdio is a contradiction.
func listenImpliesHTTP(fs *flag.FlagSet, f *serveFlags) error {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	switch {
	case !set["listen"]:
	case !set["transport"]:
		f.transport = "http"
	case f.transport == "stdio":
		return errors.New("--listen is for --transport http: drop --listen to serve on stdio, or use --transport http")
	}
	return nil
}

// serveCommand runs the supervisor in-process and serves its fleet's tools
// as one MCP server, on stdio or streamable HTTP, until a signal (ctx),
// stdin's end (stdio) or a fatal serving error. Stdout belongs to MCP in
// stdio mode: everything else goes to stderr.
func serveCommand(ctx context.Context, args []string, io IO) int {
	f, err := parseServeFlags(args, io)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor serve: %v\n", err)
		return ExitUsage
	}
	if parent, ok := lookupEnv(io, parentEnv); ok && parent != "" {
		fmt.Fprintf(io.Stderr, "mcpvisor serve: refusing to start: launched by another gateway (%s=%s) whose config lists the gateway itself; "+
			"remove the entry that runs `mcpvisor serve` from %s\n", parentEnv, parent, strings.Join(f.configs, ", "))
		return ExitUsage
	}
	log, err := newLogger(io.Stderr, f.logLevel, f.logFormat)
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor serve: %v\n", err)
		return ExitUsage
	}
	defer func() { _ = log.Sync() }()
	tp, flushTraces, err := startTracing(ctx, "serve", io)
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor serve: %v\n", err)
		return ExitUsage
	}
	defer flushTraces() // after the Supervisor closed: its last spans have ended

	// The token and the listener come before any server starts, so a
	// refusal or a taken port costs nothing.
	var ln net.Listener
	var token apiToken
	if f.transport == "http" {
		if !f.noAuth {
			token, err = serverToken(f.tokenFile, func(k string) (string, bool) { return lookupEnv(io, k) })
		}
		if err == nil {
			err = gateway.CheckOrigins(f.allowOrigins)
		}
		if err != nil {
			fmt.Fprintf(io.Stderr, "mcpvisor serve: %v\n", err)
			return ExitUsage
		}
		if ln, err = net.Listen("tcp", f.listen); err != nil {
			fmt.Fprintf(io.Stderr, "mcpvisor serve: %v\n", err)
			return ExitFailed
		}
	}
	opts := f.options(log, io.LookupEnv)
	// Servers learn that a gateway started them, so a config that lists
	// the gateway itself ends at the first nested gateway instead of
	// starting gateways without end.
	// (The value is distinctive because inherited values are redacted
	// wherever they appear: a bare pid would blank out matching digits.)
	mark := parentEnv + "=mcpvisor-serve-" + strconv.Itoa(os.Getpid())
	opts.Environ = func() []string { return append(serverEnviron(), mark) }
	opts.Secrets = []string{token.value}
	opts.TracerProvider = tp
	// Servers' sampling and elicitation requests and log messages go to
	// the gateway's clients (the relay is bound once the gateway exists).
	relay := &gateway.Relay{}
	relay.Install(&opts)
	sup, err := actors.Start(opts)
	if err != nil {
		if ln != nil {
			_ = ln.Close()
		}
		fmt.Fprintf(io.Stderr, "mcpvisor serve: %v\n", err)
		return ExitFailed
	}
	// Follow before the gateway loads the fleet's catalog: every change
	// after the load is in the feed.
	feed := sup.Follow(journal.Live, 4096)
	// Of two servers claiming one name, URI or URI template, the one
	// declared first wins: the gateway ranks them by these files.
	order := config.ResolvePaths(opts.ConfigPaths, workdirOr(opts.WorkDir), homeOr(opts.Home))
	gw := gateway.New(sup, log.Named("gateway"), gateway.WithNames(f.names), gateway.WithConfigOrder(order), gateway.WithTracerProvider(tp))
	relay.Bind(gw)
	gw.HoldFirstLists(f.startupWait, nil)
	follow, stopFollowing := context.WithCancel(context.Background())
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		gw.Run(follow, feed.C)
	}()
	// A failed supervisor ends the serving as a signal would.
	ctx, stopServing := context.WithCancel(ctx)
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		select {
		case <-sup.Done():
			stopServing()
		case <-ctx.Done():
		}
	}()
	defer func() {
		stopServing()
		<-watching
	}()

	configs := strings.Join(f.configs, ", ")
	var serveErr error
	if ln != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor serve: MCP gateway at http://%s%s, supervising %s\n", ln.Addr(), gateway.Path, configs)
		if f.noAuth {
			fmt.Fprintf(io.Stderr, "mcpvisor serve: warning: --no-auth: anyone who can reach %s, any local user included, can call every tool\n", ln.Addr())
		} else {
			fmt.Fprintf(io.Stderr, "mcpvisor serve: clients must send Authorization: Bearer TOKEN, the token in %s\n", token.from)
		}
		serveErr = gw.ServeListener(ctx, ln, f.httpOptions(token.value))
	} else {
		// A client that closes our stdout before we are done must not
		// kill the process with SIGPIPE (Go's default for fd 1 and 2):
		// the write fails instead, the session ends, servers are stopped.
		pipes := make(chan os.Signal, 1)
		signal.Notify(pipes, syscall.SIGPIPE)
		defer signal.Stop(pipes)
		fmt.Fprintf(io.Stderr, "mcpvisor serve: MCP gateway on stdio, supervising %s\n", configs)
		serveErr = gw.ServeStdio(ctx, io.Stdin, io.Stdout)
	}

	failed := sup.Err() // nil unless a core actor failed
	switch {
	case failed != nil:
		serveErr = nil // the failure is the one line to say
	case ctx.Err() != nil:
		fmt.Fprintln(io.Stderr, "mcpvisor serve: signal received; stopping every server")
	case serveErr == nil:
		fmt.Fprintln(io.Stderr, "mcpvisor serve: client closed the connection; stopping every server")
	}
	// Clients are gone: stop following, then stop every server.
	stopFollowing()
	<-followed
	feed.Close()
	closeErr := sup.Close()
	code := ExitOK
	for _, err := range []error{failed, serveErr, closeErr} {
		if err != nil {
			fmt.Fprintf(io.Stderr, "mcpvisor serve: %v\n", err)
			code = ExitFailed
		}
	}
	return code
}
