package transport

import (
	"net/http"
	"os"
	"os/exec"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// Conn is what a session dials: an MCP transport plus, for stdio, the
// process behind it. Dial builds one; the session owns it from then on
// (its lifeline goroutine connects and closes it).
type Conn struct {
	transport mcp.Transport
	cmd       *exec.Cmd // nil for HTTP transports
	// stdio is the transport of a stdio server (which transport may come
	// to wrap), the one that knows its exit status; nil for HTTP ones.
	stdio  *stdioTransport
	stderr *stderrRing // nil for HTTP transports
	// http is the session's own HTTP transport (nil for stdio), so its
	// connections can be closed when the session ends.
	http *http.Transport
	// guard is the header-adding transport of an HTTP session: it
	// remembers a request it refused, whose reason the go-sdk may report
	// only as a closed connection.
	guard *headerTransport
	// detect, for an http server, falls back to HTTP+SSE when the server
	// refuses streamable HTTP (see detect.go).
	detect *transportDetector
	// oauth is the session's OAuth handler (nil without OAuth); an
	// HTTP+SSE connection gets it through authorizeSSE.
	oauth *oauth.Handler
	// oauthHTTP is the OAuth handler's own HTTP transport (OAuthClient),
	// nil without one.
	oauthHTTP *http.Transport
}

// Stdio reports whether the connection runs a process (a stdio server
// mcpvisor starts itself, not a custom Dial's).
func (c *Conn) Stdio() bool { return c.cmd != nil }

// OwnHTTP reports whether the connection's HTTP client is mcpvisor's own,
// built for this one connection (not a custom Dial's): its requests may
// be wrapped (tracing headers).
func (c *Conn) OwnHTTP() bool { return c.http != nil }

// Refused is the reason the session's transport refused a request (a
// cross-origin SSE endpoint), or nil.
func (c *Conn) Refused() error {
	if c.guard == nil {
		return nil
	}
	if err := c.guard.refused.Load(); err != nil {
		return *err
	}
	return nil
}

// Release closes what the connection kept open beyond the session: idle
// keep-alive connections of its HTTP transport.
func (c *Conn) Release() {
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
	if c.oauthHTTP != nil {
		c.oauthHTTP.CloseIdleConnections()
	}
}

// exitState is the stdio server's exit status once it has been waited
// for, else nil (an HTTP transport, a custom Dial, or still running).
func (c *Conn) exitState() *os.ProcessState {
	if c.stdio == nil {
		return nil
	}
	return c.stdio.exitState()
}

// PID is the server's process id once started, or 0.
func (c *Conn) PID() int {
	if c.stdio == nil {
		return 0
	}
	return int(c.stdio.pid.Load())
}

// SignalGroup sends sig to the server's whole process group, so wrappers
// such as npx or sh -c do not leave their children behind.
func (c *Conn) SignalGroup(sig syscall.Signal) {
	if pid := c.PID(); pid > 0 {
		_ = syscall.Kill(-pid, sig)
	}
}

// Reap lets the process be waited for even if the connection was never
// closed (a failed connect the go-sdk did not close): call it once the
// process has been signalled. Closing the connection does the same.
func (c *Conn) Reap() {
	if c.stdio != nil {
		c.stdio.release()
	}
}

// RedactStderr sets what the stderr tail is redacted with; call it before
// the process starts. It does nothing for HTTP.
func (c *Conn) RedactStderr(r *redact.Redactor) {
	if c.stderr != nil {
		c.stderr.redactWith(r)
	}
}

// StderrTail is the server's stderr tail so far, redacted (nil for HTTP).
// Safe from any goroutine.
func (c *Conn) StderrTail() []string {
	if c.stderr == nil {
		return nil
	}
	return c.stderr.Tail()
}

// Used is the transport the connection speaks: the spec's, unless
// detection fell back to HTTP+SSE.
func (c *Conn) Used(spec messages.ServerSpec) messages.Transport {
	if c.detect != nil && c.detect.fellBack.Load() {
		return messages.TransportSSE
	}
	return spec.Transport
}
