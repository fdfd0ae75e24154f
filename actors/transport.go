package actors

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
)

// conn is what a session actor dials: an MCP transport plus, for stdio, the
// process behind it.
type conn struct {
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
	// refuses streamable HTTP (see transport_detect.go).
	detect *transportDetector
	// oauth is the session's OAuth handler (nil without OAuth); an
	// HTTP+SSE connection gets it through authorizeSSE.
	oauth *oauth.Handler
}

// refused is the reason the session's transport refused a request (a
// cross-origin SSE endpoint), or nil.
func (c *conn) refused() error {
	if c.guard == nil {
		return nil
	}
	if err := c.guard.refused.Load(); err != nil {
		return *err
	}
	return nil
}

// release closes what the connection kept open beyond the session: idle
// keep-alive connections of its HTTP transport.
func (c *conn) release() {
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
}

// exitState is the stdio server's exit status once it has been waited
// for, else nil (an HTTP transport, a custom Dial, or still running).
func (c *conn) exitState() *os.ProcessState {
	if c.stdio == nil {
		return nil
	}
	return c.stdio.exitState()
}

// pid is the server's process id once started, or 0.
func (c *conn) pid() int {
	if c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// signalGroup sends sig to the server's whole process group, so wrappers
// such as npx or sh -c do not leave their children behind.
func (c *conn) signalGroup(sig syscall.Signal) {
	if pid := c.pid(); pid > 0 {
		_ = syscall.Kill(-pid, sig)
	}
}

func (c *conn) stderrTail() []string {
	if c.stderr == nil {
		return nil
	}
	return c.stderr.Tail()
}

// stdioWaitDelay bounds how long Wait waits for stderr to drain after the
// server exited: a grandchild that inherited stderr must not stall anything.
const stdioWaitDelay = 200 * time.Millisecond

// streamRetries bounds how often a streamable HTTP session reconnects one
// closed SSE stream without the stream making progress. A server (or a
// proxy's idle timeout) may close a stream at any time and expect the
// client back: the go-sdk reconnects with a GET bearing Last-Event-ID,
// after the server's retry: hint if it gave one, else after a backoff
// from 1s growing by half each attempt, and the server replays what the
// client missed. Only a spent budget (the server is unreachable) or a 404
// on the session id (the server lost the session) ends the session, and
// that is a ServerFailed. Each event received resets the count, and so
// does a stream that stayed open a while (transport_resume.go). A
// stateful server that is simply gone fails once the budget is spent
// (about 20s) or the health probe missed its pings, whichever comes
// first; a stateless one, which holds no stream, only by the probe.
const streamRetries = 5

// dial builds the transport for spec. It starts nothing: the go-sdk starts
// the process (or opens the connection) inside Connect. custom, if set, is
// asked first.
func dial(spec messages.ServerSpec, custom func(messages.ServerSpec) (mcp.Transport, error), environ []string, grace time.Duration, clock quartz.Clock) (*conn, error) {
	if custom != nil {
		t, err := custom(spec)
		if err != nil {
			return nil, err
		}
		if t != nil {
			return &conn{transport: t}, nil
		}
	}
	switch spec.Transport {
	case messages.TransportStdio, "":
		return dialStdio(spec, environ, grace), nil
	case messages.TransportHTTP:
		hc, ht, err := originBoundClient(spec.URL, spec.Headers, false)
		if err != nil {
			return nil, err
		}
		guard := guardOf(hc)
		hc.Transport = newResumeTransport(hc.Transport, clock) // see transport_resume.go
		return detectTransport(spec, &conn{transport: &mcp.StreamableClientTransport{Endpoint: spec.URL, HTTPClient: hc, MaxRetries: streamRetries}, http: ht, guard: guard}), nil
	case messages.TransportSSE:
		// The SSE transport POSTs every message to the URL the server's
		// first event names: one on another origin is refused, or tool
		// arguments would go there.
		hc, ht, err := originBoundClient(spec.URL, spec.Headers, true)
		if err != nil {
			return nil, err
		}
		return &conn{transport: &mcp.SSEClientTransport{Endpoint: spec.URL, HTTPClient: hc}, http: ht, guard: guardOf(hc)}, nil
	default:
		return nil, fmt.Errorf("unknown transport %q", spec.Transport)
	}
}

func dialStdio(spec messages.ServerSpec, environ []string, grace time.Duration) *conn {
	cmd := exec.Command(spec.Command, spec.Args...)
	cmd.Dir = spec.Cwd
	cmd.Env = append([]string(nil), environ...)
	for k, v := range spec.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	// Its own process group: stop signals reach every descendant.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ring := newStderrRing(stderrLines)
	cmd.Stderr = ring
	cmd.WaitDelay = stdioWaitDelay
	// The transport's own escalation (close stdin, wait, SIGTERM, wait,
	// SIGKILL, wait, give up) must never overtake mcpvisor's (grace, then
	// SIGTERM and a second later SIGKILL to the whole group).
	stdio := newStdioTransport(cmd, grace+2*time.Second)
	return &conn{transport: stdio, stdio: stdio, cmd: cmd, stderr: ring}
}

// errCrossOriginRedirect refuses a redirect that would carry configured
// headers to another origin.
var errCrossOriginRedirect = errors.New("redirect to another origin refused")

// errCrossOriginEndpoint refuses a request to another origin than the
// configured URL's, which only an SSE server's endpoint event can cause.
var errCrossOriginEndpoint = errors.New("the server's SSE endpoint event points at another origin: refused (tool arguments would go there)")

// originBoundClient returns an HTTP client, on a transport of its own, that
// adds headers only to requests for endpoint's own origin and refuses
// cross-origin redirects; with sameOriginOnly it refuses every request for
// another origin.
func originBoundClient(endpoint string, headers map[string]string, sameOriginOnly bool) (*http.Client, *http.Transport, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, nil, fmt.Errorf("parse url: %w", err)
	}
	origin := u.Scheme + "://" + u.Host
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{
		Transport: &headerTransport{origin: origin, headers: headers, sameOriginOnly: sameOriginOnly, next: base},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Scheme+"://"+req.URL.Host != origin {
				return errCrossOriginRedirect
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		},
	}, base, nil
}

type headerTransport struct {
	origin         string
	headers        map[string]string
	sameOriginOnly bool
	next           http.RoundTripper
	refused        atomic.Pointer[error] // the first request refused
}

func guardOf(hc *http.Client) *headerTransport {
	t, _ := hc.Transport.(*headerTransport)
	return t
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	same := req.URL.Scheme+"://"+req.URL.Host == t.origin
	if !same && t.sameOriginOnly {
		if req.Body != nil {
			_ = req.Body.Close() // a RoundTripper closes the body, even on error
		}
		err := fmt.Errorf("%w (%s://%s)", errCrossOriginEndpoint, req.URL.Scheme, req.URL.Host)
		t.refused.CompareAndSwap(nil, &err)
		return nil, err
	}
	if len(t.headers) > 0 && same {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.next.RoundTrip(req)
}
