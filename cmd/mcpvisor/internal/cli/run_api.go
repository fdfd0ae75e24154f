package cli

import (
	"context"
	"fmt"
	"net"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
)

// apiEndpoint is run's HTTP API: its listener (nil: --listen off), the
// token every request must bear, and what the API is built with.
type apiEndpoint struct {
	ln           net.Listener
	sock         net.Listener // the Unix socket; nil unless on the default address
	token        apiToken
	allowOrigins []string
	log          *zap.Logger
}

// openAPI reads the token and listens, unless --listen is off.
func openAPI(f runFlags, log *zap.Logger, io IO) (apiEndpoint, int) {
	api := apiEndpoint{allowOrigins: f.allowOrigins, log: log}
	if !apiOn(f.listen) {
		return api, ExitOK
	}
	var err error
	if api.token, err = serverToken(f.tokenFile, io.LookupEnv); err == nil {
		err = httpapi.CheckOrigins(f.allowOrigins)
	}
	if err != nil {
		return api, usageError(io, "run", err)
	}
	var code int
	api.ln, code = listenAPI(f.listen, api.token.value, io)
	if code == ExitOK && f.listen == defaultAddr {
		api.sock = openAPISocket(io)
	}
	return api, code
}

// openAPISocket serves the API on the Unix socket too, which the CLI
// prefers when it talks to the default address. Without it (a directory
// that cannot be made private, a path too long) the API is still served
// on TCP, whose owner the CLI checks: a warning says so.
func openAPISocket(io IO) net.Listener {
	path, err := apiSocketPath(io.LookupEnv)
	var ln net.Listener
	if err == nil {
		ln, err = listenAPISocket(path)
	}
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor run: warning: no Unix socket for the API (%v); clients use TCP only\n", err)
		return nil
	}
	return ln
}

func (api apiEndpoint) close() {
	if api.ln != nil {
		_ = api.ln.Close()
	}
	if api.sock != nil {
		_ = api.sock.Close()
	}
}

// announce says where the API is, if it is on.
func (api apiEndpoint) announce(io IO) {
	if api.ln != nil {
		fmt.Fprintf(io.Stdout, "mcpvisor: HTTP API on http://%s (bearer token in %s)\n", api.ln.Addr(), api.token.from)
	}
	if api.sock != nil {
		fmt.Fprintf(io.Stdout, "mcpvisor: HTTP API also on the Unix socket %s (the CLI's first choice)\n", api.sock.Addr())
	}
}

// serveUntil serves the API (if it is on) over sup until ctx ends, sup
// ends (a core actor failed) or the API fails, and returns the API's
// error. The API is shut down before the supervisor: its event streams
// end and its in-flight calls are cancelled first.
func (api apiEndpoint) serveUntil(ctx context.Context, sup *actors.Supervisor, io IO) error {
	apiCtx, stopAPI := context.WithCancel(ctx)
	defer stopAPI()
	served := make(chan error, 1) // written only if the API runs
	if api.ln != nil {
		srv, err := httpapi.New(httpapi.Options{Fleet: sup, Token: api.token.value, AllowOrigins: api.allowOrigins, Logger: api.log})
		if err != nil { // CheckOrigins accepted them: not expected
			api.close()
			served <- err
		} else {
			var more []net.Listener
			if api.sock != nil {
				more = append(more, api.sock)
			}
			go func() { served <- srv.Serve(apiCtx, api.ln, more...) }()
		}
	}
	select {
	case <-ctx.Done():
		fmt.Fprintln(io.Stdout, "mcpvisor: stopping every server")
	case err := <-served: // Serve returns early only on failure
		fmt.Fprintln(io.Stdout, "mcpvisor: the HTTP API failed; stopping every server")
		return err
	case <-sup.Done(): // a core actor failed: the servers are stopping
	}
	stopAPI()
	if api.ln != nil {
		return <-served
	}
	return nil
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
