package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

const authUsage = `Usage:
  mcpvisor auth login NAME [--config FILE]... [--no-browser]
                                                log in to a remote server (OAuth), then ask the daemon to connect it
  mcpvisor auth status [--json]                 remote servers: state (from a running daemon), resource, scopes, expiry (no token text)
  mcpvisor auth logout NAME                     forget (and revoke, where supported) a server's tokens
`

// authCommand runs `mcpvisor auth SUBCOMMAND`.
func authCommand(ctx context.Context, args []string, io IO) int {
	if len(args) == 0 {
		fmt.Fprint(io.Stderr, authUsage)
		return ExitUsage
	}
	switch args[0] {
	case "login":
		return authLogin(ctx, args[1:], io)
	case "status":
		return authStatus(ctx, args[1:], io)
	case "logout":
		return authLogout(ctx, args[1:], io)
	case "-h", "--help", "help":
		fmt.Fprint(io.Stdout, authUsage)
		return ExitOK
	}
	fmt.Fprintf(io.Stderr, "mcpvisor auth: unknown subcommand %q\n\n%s", args[0], authUsage)
	return ExitUsage
}

// parseName parses flags before and after one server name.
func (f *clientFlags) parseName(args []string) (string, int) {
	if code := f.parse(args); code >= 0 {
		return "", code
	}
	if f.fs.NArg() == 0 {
		return "", f.usageError(f.fs.Output(), "name one server")
	}
	name := f.fs.Arg(0)
	if code := f.parse(f.fs.Args()[1:]); code >= 0 {
		return "", code
	}
	if f.fs.NArg() != 0 {
		return "", f.usageError(f.fs.Output(), "name one server (got %q)", append([]string{name}, f.fs.Args()...))
	}
	return name, -1
}

// tokenStore is the store the daemon reads, as the environment places it.
func tokenStore(io IO) (oauth.Store, error) {
	dir, err := oauth.DefaultDir(func(k string) string { v, _ := lookupEnv(io, k); return v })
	return oauth.Store{Dir: dir}, err
}

func authLogin(ctx context.Context, args []string, io IO) int {
	f := newClientFlags("auth login", "NAME [--config FILE]... [--addr host:port]", io)
	var cf configFlags
	f.fs.Var(&cf.configs, "config", "config file declaring NAME (repeatable; default as mcpvisor run finds them)")
	f.fs.StringVar(&cf.workdir, "workdir", "", "directory relative config paths resolve against (default: current directory)")
	noResync := f.fs.Bool("no-resync", false, "only store the token; do not ask a running daemon to connect the server")
	noBrowser := f.fs.Bool("no-browser", false, "only print the authorization URL; do not start a browser")
	name, code := f.parseName(args)
	if code >= 0 {
		return code
	}
	lookup := func(k string) (string, bool) { return lookupEnv(io, k) }
	cf.defaults(lookup)
	wd, home := workdirOr(cf.workdir), homeDir(lookup)
	cfg, _ := config.Load(ondisk.ReadConfigFiles(config.ResolvePaths(cf.configs, wd, home)),
		config.LoadOptions{LookupEnv: lookup, Home: home, Trust: checkTrustPolicy(wd, home, lookup)}, nil)
	var spec *messages.ServerSpec
	for i := range cfg.Servers {
		if cfg.Servers[i].Name == name {
			spec = &cfg.Servers[i]
		}
	}
	if spec == nil {
		fmt.Fprintf(io.Stderr, "mcpvisor auth login: no server %q in %s\n", name, strings.Join(cf.configs, ", "))
		return ExitFailed
	}
	if spec.OAuth != nil && spec.OAuth.Grant == messages.GrantClientCredentials {
		fmt.Fprintf(io.Stderr, "mcpvisor auth login: %s uses the client_credentials grant: the daemon fetches its tokens itself\n", name)
		return ExitOK
	}
	store, err := tokenStore(io)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	loginCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	pages := &loginPages{lookup: lookup}
	defer pages.remove()
	rec, err := oauth.Login(loginCtx, oauth.LoginOptions{Spec: *spec, Store: store, Open: func(url string) error {
		fmt.Fprintf(io.Stderr, "Open this URL to log in to %s:\n  %s\n", name, url)
		if *noBrowser {
			return nil
		}
		if err := pages.open(url); err != nil {
			fmt.Fprintf(io.Stderr, "mcpvisor auth login: the browser did not start (%v): open the URL above yourself\n", err)
		}
		return nil
	}, Ignored: func(notice string) { fmt.Fprintf(io.Stderr, "mcpvisor auth login: %s\n", notice) }})
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor auth login: %s\n", redact.New(config.SecretsOf(*spec)...).Redact(err.Error()))
		return ExitFailed
	}
	fmt.Fprintf(io.Stdout, "logged in to %s (scopes: %s)\n", name, strings.Join(rec.Scopes, " "))
	if *noResync {
		return ExitOK
	}
	c, err := f.client(io)
	if err == nil {
		defer c.close()
		var res httpapi.ResyncResult
		_, err = c.do(ctx, "POST", "/api/v1/resync", httpapi.ResyncRequest{}, &res)
	}
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor auth login: the token is stored, but no daemon took it (%v): a running daemon connects %s at its next resync\n", err, name)
	}
	return ExitOK
}

func authStatus(ctx context.Context, args []string, io IO) int {
	f := newClientFlags("auth status", "[--json]", io)
	if code := f.parse(args); code >= 0 {
		return code
	}
	states := daemonStates(ctx, f, io)
	store, err := tokenStore(io)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	recs, errs := store.List()
	sums := make([]oauth.Summary, 0, len(recs))
	for _, r := range recs {
		sums = append(sums, r.Summary())
	}
	if f.asJSON {
		_ = json.NewEncoder(io.Stdout).Encode(map[string]any{"tokens": sums, "states": states})
	} else {
		tw := tabwriter.NewWriter(io.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVER\tSTATE\tRESOURCE\tSCOPES\tEXPIRES\tREFRESH")
		stored := map[string]bool{}
		for _, s := range sums {
			stored[s.Server] = true
			exp := "-"
			if !s.Expiry.IsZero() {
				exp = s.Expiry.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\n", s.Server, stateOr(states, s.Server), s.Resource, strings.Join(s.Scopes, " "), exp, s.Refreshable)
		}
		for _, name := range slices.Sorted(maps.Keys(states)) {
			if states[name] == messages.StateNeedsAuth && !stored[name] {
				fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\n", name, states[name])
			}
		}
		_ = tw.Flush()
	}
	for _, err := range errs {
		fmt.Fprintf(io.Stderr, "mcpvisor auth status: %v\n", err)
	}
	if len(errs) > 0 {
		return ExitFailed
	}
	return ExitOK
}

// daemonStates are the remote servers' states, when a daemon answers.
func daemonStates(ctx context.Context, f *clientFlags, io IO) map[string]messages.State {
	states := map[string]messages.State{}
	c, err := f.client(io)
	if err != nil {
		return states
	}
	defer c.close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var st messages.Status
	if _, err := c.do(ctx, "GET", "/api/v1/status", nil, &st); err != nil {
		return states
	}
	for _, s := range st.Servers {
		if s.Transport == messages.TransportHTTP || s.Transport == messages.TransportSSE {
			states[s.Name] = s.State
		}
	}
	return states
}

func stateOr(states map[string]messages.State, name string) string {
	if st, ok := states[name]; ok {
		return string(st)
	}
	return "-"
}

func authLogout(ctx context.Context, args []string, io IO) int {
	f := newClientFlags("auth logout", "NAME", io)
	name, code := f.parseName(args)
	if code >= 0 {
		return code
	}
	store, err := tokenStore(io)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	recs, _ := store.List()
	n := 0
	for _, r := range recs {
		if r.Server != name {
			continue
		}
		revokeCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		if err := oauth.Revoke(revokeCtx, nil, r); err != nil {
			fmt.Fprintf(io.Stderr, "mcpvisor auth logout: %v (the token is forgotten anyway)\n", err)
		}
		cancel()
		if err := store.Delete(r.Server, r.Resource); err != nil {
			return f.fail(io.Stderr, err)
		}
		n++
	}
	fmt.Fprintf(io.Stdout, "forgot %d token(s) of %s\n", n, name)
	return ExitOK
}
