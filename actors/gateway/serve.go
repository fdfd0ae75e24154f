package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/httpguard"
	"github.com/mcpvisor/mcpvisor/actors/internal/ndjson"
	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
)

// Path is where ServeListener serves MCP.
const Path = "/mcp"

// ShutdownTimeout bounds http.Server.Shutdown once every session is closed.
const ShutdownTimeout = 5 * time.Second

// statelessFrom is the first protocol version served by the stateless
// handler (SEP-2575: no sessions, notifications on subscriptions/listen).
const statelessFrom = "2026-07-28"

// ServeStdio serves one MCP session on r and w (a process's stdin and
// stdout) until r ends, the client stops reading w, or ctx ends (or, for
// a mounted gateway, its Supervisor). Nothing else may write to w. If r
// is an io.Closer it is closed on the way out.
func (g *Gateway) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, stop := g.untilEnded(ctx)
	defer stop()
	in := newInterruptibleReader(r)
	defer in.Close()
	// mcpvisor's own stdio connection, as for its stdio servers: it reads
	// on the go-sdk's reader goroutine, with no buffer allocated per
	// message (see package ndjson).
	// Wrapped so that a client's answer to an elicitation is captured
	// (elicit_verbatim.go).
	ss, err := g.server.Connect(ctx, verbatim.Transport(&ndjson.Transport{Reader: in, Writer: nopWriteCloser{w}}, nil), nil)
	if err != nil {
		return fmt.Errorf("serve stdio: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err = <-ended:
	case <-ctx.Done():
		// Ending the input, not ss.Close, is what stops the session: the
		// connection cancels every in-flight request when its reader
		// fails. ss.Close waits for in-flight requests and only cancels
		// subscriptions/listen handlers that had started when it looked,
		// so a listen still queued then parks it forever (go-sdk v1.8.0).
		in.Close()
		err = <-ended
	}
	_ = ss.Close() // already ended: releases the session
	switch {
	case ctx.Err() != nil, err == nil, peerGone(err):
		return nil
	default:
		return fmt.Errorf("serve stdio: %w", err)
	}
}

// peerGone reports errors that only mean the client went away: its end of
// stdin or stdout was closed.
func peerGone(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, mcp.ErrConnectionClosed)
}

// interruptibleReader reads r on its own goroutine so that Close makes a
// pending Read return at once, even when r cannot be interrupted (a
// blocking stdin). The goroutine ends when r's Read returns; Close closes r
// if it can, which ends it for pipes and sockets; for a blocking stdin it
// ends with the process, like the go-sdk's own reader.
type interruptibleReader struct {
	r    io.Reader
	pr   *io.PipeReader
	once sync.Once
}

func newInterruptibleReader(r io.Reader) *interruptibleReader {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err) // nil: readers get io.EOF
	}()
	return &interruptibleReader{r: r, pr: pr}
}

func (ir *interruptibleReader) Read(p []byte) (int, error) { return ir.pr.Read(p) }

func (ir *interruptibleReader) Close() error {
	ir.once.Do(func() {
		_ = ir.pr.CloseWithError(io.EOF)
		if c, ok := ir.r.(io.Closer); ok {
			_ = c.Close()
		}
	})
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// HTTPOptions configure the gateway's HTTP mode.
type HTTPOptions struct {
	// Token is required as "Authorization: Bearer TOKEN" on every
	// request, and must be at least 32 bytes long (Handler refuses a
	// shorter one). Without a token nothing is served, unless NoAuth.
	// Wrong tokens are throttled: after a burst of 10, one guess a second
	// for the whole gateway, the others answered 429 with Retry-After.
	// Under ServeListener, requests of the gateway's own user (loopback
	// TCP from its uid, or a Unix socket's peer of it) are not throttled,
	// so another local user cannot lock it out; through Handler, in your
	// own http.Server, which user a request comes from is not known and
	// every request is throttled.
	Token string
	// NoAuth serves every request without a token: anyone who can reach
	// the address (any local user) can call every tool.
	NoAuth bool
	// AllowOrigins are browser origins ("scheme://host[:port]") whose
	// pages may use the gateway; any other Origin, or Sec-Fetch-Site of
	// another site, is refused with 403. Requests without them (MCP SDK
	// clients, curl) pass.
	AllowOrigins []string
	// Clock times request bodies; default: the real clock.
	Clock quartz.Clock
	// BodyTimeout bounds how long a request body may take to arrive
	// (default 30s).
	BodyTimeout time.Duration
	// SessionTimeout ends a stateful session (protocols before
	// 2026-07-28) that had no request in flight for that long (default
	// DefaultSessionTimeout; negative: never). Only ServeListener ends
	// them.
	SessionTimeout time.Duration
	// MaxSessions caps the stateful sessions live at once (default
	// DefaultMaxSessions; negative: no cap); beyond it a new session is
	// refused with 503.
	MaxSessions int
}

// CheckOrigins says whether Handler would accept origins as
// HTTPOptions.AllowOrigins.
func CheckOrigins(origins []string) error {
	_, err := httpguard.NewOrigins(origins)
	return err
}

// MaxBodyBytes bounds a request body: the go-sdk's own default.
const MaxBodyBytes = 4 << 20

// Handler serves MCP over streamable HTTP at Path. Requests that carry a
// protocol version of 2026-07-28 or later (the MCP-Protocol-Version header
// the go-sdk and the spec send with every such request) go to a stateless
// handler; older clients get a stateful one with session ids and a
// standalone SSE stream for notifications. Both serve the same server, so
// every client sees one tool set and every one is told when it changes.
//
// In front of them, in this order: requests made by web pages of other
// origins get 403, requests without the token 401, requests for a Host
// that is not localhost 403 (DNS rebinding protection, the go-sdk's),
// and a body must arrive within BodyTimeout (408) and be at most
// MaxBodyBytes (413). In your own http.Server it cannot tell its own
// user's requests from others', so it throttles every wrong token
// (ServeListener spares the owner's; see HTTPOptions.Token). It fails
// only on a malformed AllowOrigins entry or a short Token.
func (g *Gateway) Handler(opts HTTPOptions) (http.Handler, error) {
	h, _, err := g.httpHandler(opts)
	return h, err
}

// httpHandler is Handler plus the table of its stateful sessions.
func (g *Gateway) httpHandler(opts HTTPOptions) (http.Handler, *sessionTable, error) {
	origins, err := httpguard.NewOrigins(opts.AllowOrigins)
	if err != nil {
		return nil, nil, err
	}
	if err := httpguard.CheckToken(opts.Token); err != nil {
		return nil, nil, fmt.Errorf("gateway: %w", err)
	}
	opts = opts.withDefaults()
	token := httpguard.NewToken(opts.Token)
	bearer := httpguard.NewThrottle(token, opts.Clock)
	get := func(*http.Request) *mcp.Server { return g.server }
	sessions := newSessionTable(g.server, opts.Clock, g.log.Named("http"), opts.SessionTimeout, opts.MaxSessions)
	// Event ids (and a retry: hint) on every stream: a client whose
	// stream broke resumes it with Last-Event-ID and misses nothing.
	stateful := sessions.wrap(retryHint(mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Logger:     g.slog,
		EventStore: mcp.NewMemoryEventStore(nil),
	})))
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless: true,
		Logger:    g.slog,
		// A client that hangs up cancels its call upstream.
		PropagateRequestCancellation: true,
	})
	mux := http.NewServeMux()
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		if err := origins.Check(r); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		if !opts.NoAuth && !authorized(w, r, bearer, token) {
			return
		}
		body, ok := readBody(w, r, opts)
		if !ok {
			return
		}
		g.keepAnswer(body)
		if v := r.Header.Get("Mcp-Protocol-Version"); v >= statelessFrom {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	return mux, sessions, nil
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.Clock == nil {
		o.Clock = quartz.NewReal()
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = httpguard.DefaultBodyTimeout
	}
	if o.SessionTimeout == 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	return o
}

// authorized answers a request without the token (401) or one that came
// while wrong tokens are throttled (429), and returns false for those.
func authorized(w http.ResponseWriter, r *http.Request, bearer *httpguard.Throttle, token httpguard.Token) bool {
	verdict, wait := bearer.Check(r)
	switch verdict {
	case httpguard.Authorized:
		return true
	case httpguard.Throttled:
		httpguard.SetRetryAfter(w.Header(), wait)
		http.Error(w, httpguard.ThrottledMessage, http.StatusTooManyRequests)
		return false
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="mcpvisor"`)
	msg := "missing or wrong bearer token: send Authorization: Bearer TOKEN with the gateway's token " +
		"(its token file, by default ~/.local/state/mcpvisor/token)"
	if !token.Set() {
		msg = "this gateway was started without a token, so it serves nobody: give it one (HTTPOptions.Token), or set HTTPOptions.NoAuth"
	}
	http.Error(w, msg, http.StatusUnauthorized)
	return false
}

// readBody reads the request's body within opts.BodyTimeout and hands it
// on from memory (and returns it), or answers the error and returns false.
func readBody(w http.ResponseWriter, r *http.Request, opts HTTPOptions) ([]byte, bool) {
	body, err := httpguard.ReadBody(w, r, opts.Clock, opts.BodyTimeout, MaxBodyBytes)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		http.Error(w, fmt.Sprintf("request body larger than %d bytes", MaxBodyBytes), http.StatusRequestEntityTooLarge)
		return nil, false
	case errors.Is(err, httpguard.ErrBodyTimeout):
		http.Error(w, fmt.Sprintf("request body not received within %s", opts.BodyTimeout), http.StatusRequestTimeout)
		return nil, false
	case err != nil:
		http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	return body, true
}

// ServeListener serves Handler(opts) on ln until ctx ends (or, for a
// mounted gateway, its Supervisor), then shuts down: it cancels every
// request's context, closes every MCP session (streamable HTTP keeps SSE
// and subscriptions/listen streams open for a session's whole life),
// closes connections that never sent a request (Shutdown would wait 5s
// before counting them idle; HTTP clients dial such spares), then shuts
// the server down within ShutdownTimeout and waits for it. Wrong tokens
// of its own user's connections are not throttled (HTTPOptions.Token). ln is closed
// when ServeListener returns.
func (g *Gateway) ServeListener(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	ctx, stop := g.untilEnded(ctx)
	defer stop()
	handler, sessions, err := g.httpHandler(opts)
	if err != nil {
		_ = ln.Close()
		return err
	}
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	reaper := sessions.reap(base)
	defer func() {
		cancelBase()
		_ = reaper.Wait()
	}()
	conns := &connTracker{states: map[net.Conn]http.ConnState{}}
	srv := &http.Server{
		Handler:           handler,
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnContext:       httpguard.OwnerConnContext, // the owner's requests are not throttled
		ConnState:         conns.track,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          zap.NewStdLog(g.log.Named("http")),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	cancelBase()
	g.closeSessions()
	conns.closeUnused()
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	if err != nil {
		g.log.Warn("http shutdown timed out; closing connections", zap.Error(err))
		err = errors.Join(fmt.Errorf("shutdown http: %w", err), srv.Close())
	}
	<-served // http.ErrServerClosed
	return err
}

// connTracker follows the server's connections so that shutdown can close
// the ones that never carried a request.
type connTracker struct {
	mu     sync.Mutex
	states map[net.Conn]http.ConnState
}

func (c *connTracker) track(conn net.Conn, st http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(c.states, conn)
	default:
		c.states[conn] = st
	}
}

func (c *connTracker) closeUnused() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for conn, st := range c.states {
		if st == http.StateNew {
			_ = conn.Close()
		}
	}
}

// closeSessions ends every MCP session of the gateway's server.
func (g *Gateway) closeSessions() {
	for ss := range g.server.Sessions() {
		_ = ss.Close()
	}
}

// CheckLoopback refuses listen addresses that are not loopback: the
// gateway runs tools with the user's rights, and its token is meant for
// clients on this machine. Accepted hosts: localhost, 127.0.0.0/8, ::1.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("listen address %q is not loopback: the gateway runs every tool with your rights, so it only listens on localhost, 127.0.0.1 or [::1]", addr)
}
