package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpvisor/mcpvisor/actors/gateway"
)

// gatewayEndpoint is where serve's clients reach the gateway: stdin and
// stdout, or an HTTP listener with the token its clients must bear.
type gatewayEndpoint struct {
	ln    net.Listener // nil: stdio
	token apiToken
}

// openServeEndpoint reads the token and listens, for HTTP; for stdio
// there is nothing to open.
func openServeEndpoint(f serveFlags, io IO) (gatewayEndpoint, int) {
	var ep gatewayEndpoint
	if f.transport != "http" {
		return ep, ExitOK
	}
	var err error
	if !f.noAuth {
		ep.token, err = serverToken(f.tokenFile, func(k string) (string, bool) { return lookupEnv(io, k) })
	}
	if err == nil {
		err = gateway.CheckOrigins(f.allowOrigins)
	}
	if err != nil {
		return ep, usageError(io, "serve", err)
	}
	if ep.ln, err = net.Listen("tcp", f.listen); err != nil {
		return ep, finalCode(io, "serve", err)
	}
	return ep, ExitOK
}

func (ep gatewayEndpoint) close() {
	if ep.ln != nil {
		_ = ep.ln.Close()
	}
}

// serve serves gw until ctx ends, its Supervisor ends, or the client or
// the listener does.
func (ep gatewayEndpoint) serve(ctx context.Context, gw *gateway.Gateway, f serveFlags, io IO) error {
	configs := strings.Join(f.configs, ", ")
	if ep.ln != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor serve: MCP gateway at http://%s%s, supervising %s\n", ep.ln.Addr(), gateway.Path, configs)
		if f.noAuth {
			fmt.Fprintf(io.Stderr, "mcpvisor serve: warning: --no-auth: anyone who can reach %s, any local user included, can call every tool\n", ep.ln.Addr())
		} else {
			fmt.Fprintf(io.Stderr, "mcpvisor serve: clients must send Authorization: Bearer TOKEN, the token in %s\n", ep.token.from)
		}
		return gw.ServeListener(ctx, ep.ln, f.httpOptions(ep.token.value))
	}
	// A client that closes our stdout before we are done must not kill
	// the process with SIGPIPE (Go's default for fd 1 and 2): the write
	// fails instead, the session ends, servers are stopped.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	fmt.Fprintf(io.Stderr, "mcpvisor serve: MCP gateway on stdio, supervising %s\n", configs)
	return gw.ServeStdio(ctx, io.Stdin, io.Stdout)
}
