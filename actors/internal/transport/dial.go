package transport

import (
	"fmt"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
)

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
// does a stream that stayed open a while (resume.go). A
// stateful server that is simply gone fails once the budget is spent
// (about 20s) or the health probe missed its pings, whichever comes
// first; a stateless one, which holds no stream, only by the probe.
const streamRetries = 5

// Dial builds the connection for spec. It starts nothing: the go-sdk
// starts the process (or opens the connection) inside Connect. custom, if
// set, is asked first (Options.Dial: an embedder's transports, tests'
// in-memory servers); a nil transport from it falls back to the built-in
// ones. stdio is what a stdio server is started with.
func Dial(spec messages.ServerSpec, custom func(messages.ServerSpec) (mcp.Transport, error), stdio Stdio, clock quartz.Clock) (*Conn, error) {
	if custom != nil {
		t, err := custom(spec)
		if err != nil {
			return nil, err
		}
		if t != nil {
			return &Conn{transport: t}, nil
		}
	}
	switch spec.Transport {
	case messages.TransportStdio, "":
		return dialStdio(spec, stdio), nil
	case messages.TransportHTTP:
		hc, ht, err := originBoundClient(spec.URL, spec.Headers, false)
		if err != nil {
			return nil, err
		}
		guard := guardOf(hc)
		hc.Transport = newResumeTransport(hc.Transport, clock) // see resume.go
		return detectTransport(spec, &Conn{transport: &mcp.StreamableClientTransport{Endpoint: spec.URL, HTTPClient: hc, MaxRetries: streamRetries}, http: ht, guard: guard}), nil
	case messages.TransportSSE:
		// The SSE transport POSTs every message to the URL the server's
		// first event names: one on another origin is refused, or tool
		// arguments would go there.
		hc, ht, err := originBoundClient(spec.URL, spec.Headers, true)
		if err != nil {
			return nil, err
		}
		return &Conn{transport: &mcp.SSEClientTransport{Endpoint: spec.URL, HTTPClient: hc}, http: ht, guard: guardOf(hc)}, nil
	default:
		return nil, fmt.Errorf("unknown transport %q", spec.Transport)
	}
}

// Stdio is what a stdio server is started with, beyond its spec.
type Stdio struct {
	// Environ is the server's environment before its own env.
	Environ []string
	// Grace is the session's stop grace, which the process transport's
	// own escalation never overtakes.
	Grace time.Duration
	// Groups, if set, is told of the server's process group
	// (Options.ProcessGroups).
	Groups func(pgid int) (gone func())
}

func dialStdio(spec messages.ServerSpec, o Stdio) *Conn {
	cmd := command(spec)
	cmd.Dir = spec.Cwd
	cmd.Env = append([]string(nil), o.Environ...)
	for k, v := range spec.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = serverProcAttr()
	ring := newStderrRing(stderrLines)
	cmd.Stderr = ring
	cmd.WaitDelay = stdioWaitDelay
	// The transport's own escalation (close stdin, wait, SIGTERM, wait,
	// SIGKILL, wait, give up) must never overtake mcpvisor's (grace, then
	// SIGTERM and a second later SIGKILL to the whole group).
	stdio := newStdioTransport(cmd, o.Grace+2*time.Second, o.Groups)
	return &Conn{transport: stdio, stdio: stdio, cmd: cmd, stderr: ring}
}
