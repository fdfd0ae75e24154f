package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
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
	// maxNameLength bounds exposed names, the client's wrapping
	// included; 0: no bound.
	maxNameLength int
	// sessionTimeout and maxSessions bound the HTTP gateway's sessions.
	sessionTimeout time.Duration
	maxSessions    int
	// startupWait bounds how long the first lists wait for the first
	// connect wave.
	startupWait time.Duration
	// assumeCaps is what a server that connects before any client is
	// told the client can do (gateway.Relay.Default).
	assumeCaps *mcp.ClientCapabilities
	// stopGrace is how long serve's own stop (end of input, SIGINT,
	// SIGTERM) gives each server: actors.Options.CloseGrace.
	stopGrace time.Duration
}

// defaultStopGrace is serve's stop grace: Claude Code sends SIGINT, then
// SIGTERM 100ms later and SIGKILL 400ms after that, so every server must
// be gone (and serve with them) well within half a second.
const defaultStopGrace = 300 * time.Millisecond

func parseServeFlags(args []string, io IO) (serveFlags, error) {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Stderr)
	f.register(fs)
	fs.StringVar(&f.transport, "transport", "stdio", "how MCP clients reach the gateway: stdio (launched by the client) or http (streamable HTTP at /mcp)")
	fs.StringVar(&f.listen, "listen", defaultListen, "address for HTTP (implies --transport http); loopback only (localhost, 127.0.0.1, [::1]); port 0 picks a free one")
	fs.StringVar(&f.tokenFile, "token-file", "", "for --transport http: file holding the token every request must bear (default $MCPVISOR_TOKEN, else $XDG_STATE_HOME/mcpvisor/token, a fresh one at each start unless a live daemon uses it; at least 32 bytes)")
	fs.BoolVar(&f.noAuth, "no-auth", false, "for --transport http: take requests without a token (any local user can then call every tool)")
	names := fs.String("names", string(gateway.NamesPrefixed), "how tools and prompts are named: prefixed (prefix__tool: the server's exposed prefix, which status shows) or bare (as each server names them; of two servers with one name, the first in config order wins)")
	fs.IntVar(&f.maxNameLength, "max-name-length", gateway.DefaultMaxNameLength, fmt.Sprintf("longest tool or prompt name a client may see, counting %d characters for its own wrapping (Claude Code's mcp__<entry>__), so exposed names are at most %d by default; longer ones are shortened with a stable hash and reported (0: no bound; at least %d)",
		config.ClientNameAllowance, config.NameBudget(gateway.DefaultMaxNameLength), config.MinMaxNameLength))
	fs.Var(&f.allowOrigins, "allow-origin", "for --transport http: a browser origin (scheme://host[:port]) whose pages may use the gateway (repeatable; default none)")
	fs.DurationVar(&f.startupWait, "startup-wait", gateway.DefaultStartupWait, "answer the first tools/list, prompts/list and resources/list once every server has started or failed, or after this long, whichever is first (0: at once)")
	fs.DurationVar(&f.sessionTimeout, "session-timeout", gateway.DefaultSessionTimeout, "for --transport http: end a client session with no request in flight for this long (0: never)")
	fs.DurationVar(&f.stopGrace, "stop-grace", defaultStopGrace, "when serve stops (end of input, SIGINT, SIGTERM): how long each server has to exit after its stdin closes; its process group gets SIGTERM at half of it and SIGKILL at the end")
	fs.IntVar(&f.maxSessions, "max-sessions", gateway.DefaultMaxSessions, "for --transport http: refuse new client sessions (503) while this many are live (0: no limit)")
	assumeCaps := fs.String("assume-client-capabilities", "none", "what a server that starts before any client has connected is told the client can do: none, or a comma-separated list of "+strings.Join(gateway.ClientCapabilityNames, ", ")+" (a server lists some tools only for clients that have them; later servers are told what the connected clients have)")
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
	if f.maxNameLength < 0 || f.maxNameLength > 0 && f.maxNameLength < config.MinMaxNameLength {
		return f, fmt.Errorf("--max-name-length %d: use 0 (no bound) or at least %d (%d for the client's wrapping, the rest for a shortened prefix and name)",
			f.maxNameLength, config.MinMaxNameLength, config.ClientNameAllowance)
	}
	if f.stopGrace <= 0 {
		return f, fmt.Errorf("--stop-grace %s: give a positive duration such as %s", f.stopGrace, defaultStopGrace)
	}
	var err error
	if f.names, err = gateway.ParseNames(*names); err != nil {
		return f, fmt.Errorf("--names: %w", err)
	}
	if f.assumeCaps, err = gateway.ParseClientCapabilities(*assumeCaps); err != nil {
		return f, fmt.Errorf("--assume-client-capabilities: %w", err)
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

// mountOptions are the gateway's options from the flags. A
// --max-name-length of 0 means no bound, which MountOptions spells
// negative (its zero is the default).
func (f serveFlags) mountOptions(log *zap.Logger, relay *gateway.Relay, tp trace.TracerProvider) gateway.MountOptions {
	o := gateway.MountOptions{Logger: log.Named("gateway"), Names: f.names, MaxNameLength: f.maxNameLength,
		StartupWait: f.startupWait, Relay: relay, TracerProvider: tp}
	if o.MaxNameLength == 0 {
		o.MaxNameLength = -1
	}
	return o
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
// stdin's end (stdio), a failed supervisor or a fatal serving error.
// Stdout belongs to MCP in stdio mode: everything else goes to stderr.
func serveCommand(ctx context.Context, args []string, io IO) int {
	f, err := parseServeFlags(args, io)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err == nil {
		err = refuseNested(f, io)
	}
	if err != nil {
		return usageError(io, "serve", err)
	}
	log, tp, done, code := prelude(ctx, "serve", f.configFlags, io)
	if code != ExitOK {
		return code
	}
	defer done()
	// The token and the listener come before any server starts, so a
	// refusal or a taken port costs nothing.
	ep, code := openServeEndpoint(f, io)
	defer ep.token.release()
	if code != ExitOK {
		return code
	}
	relay := &gateway.Relay{Default: f.assumeCaps}
	opts := f.serveOptions(log, tp, ep.token.value, relay, io)
	stopKeeper := startKeeper("serve", &opts, io)
	defer stopKeeper() // after the Supervisor's Close: every group is gone
	sup, err := actors.Start(opts)
	if err != nil {
		ep.close()
		return finalCode(io, "serve", err)
	}
	gw := gateway.Mount(sup, f.mountOptions(log, relay, tp))
	serveErr := ep.serve(ctx, gw, f, io)
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
	gw.Close()
	return finalCode(io, "serve", failed, serveErr, sup.Close())
}

// refuseNested refuses to start a gateway that another one started: its
// config lists the gateway itself.
func refuseNested(f serveFlags, io IO) error {
	if parent, ok := lookupEnv(io, parentEnv); ok && parent != "" {
		return fmt.Errorf("refusing to start: launched by another gateway (%s=%s) whose config lists the gateway itself; "+
			"remove the entry that runs `mcpvisor serve` from %s", parentEnv, parent, strings.Join(f.configs, ", "))
	}
	return nil
}

// serveOptions are the Supervisor's options for serve: the flags', plus
// the mark of the gateway in every server's environment, the token to
// redact, the tracer, and the relay that hands the servers' requests to
// the gateway's clients.
func (f serveFlags) serveOptions(log *zap.Logger, tp trace.TracerProvider, token string, relay *gateway.Relay, io IO) actors.Options {
	opts := f.options(log, io.LookupEnv)
	// Servers learn that a gateway started them, so a config that lists
	// the gateway itself ends at the first nested gateway instead of
	// starting gateways without end. (The value is distinctive because
	// inherited values are redacted wherever they appear: a bare pid would
	// blank out matching digits.)
	mark := parentEnv + "=mcpvisor-serve-" + strconv.Itoa(os.Getpid())
	opts.Environ = func() []string { return append(serverEnviron(), mark) }
	opts.Secrets = []string{token}
	opts.TracerProvider = tp
	opts.CloseGrace = f.stopGrace
	relay.Install(&opts)
	return opts
}
