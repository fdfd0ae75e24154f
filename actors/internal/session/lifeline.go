package session

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/internal/transport"
	"github.com/mcpvisor/mcpvisor/messages"
)

// start builds the connection and the client, and starts the lifeline.
func (s *sessionActor) start(c actor.Context) {
	s.ctx, s.cancel = context.WithCancel(s.deps.Context)
	self, root := c.Self(), c.ActorSystem().Root
	environ, err := s.deps.Environ(s.spec)
	var cn *transport.Conn
	if err == nil {
		stdio := transport.Stdio{Environ: environ, Grace: s.deps.StopGrace, Groups: s.deps.ProcessGroups}
		cn, err = transport.Dial(s.spec, s.deps.Dial, stdio, s.deps.Clock)
	}
	if err == nil && s.spec.HeadersHelper != "" {
		var helperEnv []string
		if helperEnv, err = s.deps.BaseEnviron(); err == nil {
			cn.UseHeadersHelper(s.spec, helperEnv, s.redactor.learn)
		}
	}
	if err != nil {
		root.Send(self, &lifelineEnded{err: fmt.Errorf("build transport: %w", err), exitCode: -1})
		return
	}
	cn.RedactStderr(s.redactor.fixed()) // before the process starts
	s.attachOAuth(cn)
	// The connect policy samples the server's process group.
	parent := c.Parent()
	cn.OnStart(func(pid int) { root.Send(parent, &Spawned{ID: s.id, PID: pid}) })
	s.conn = cn
	s.relay = relay.New(s.deps.relayDeps(), s.spec, s.id, s.redactor, s.handle.unsolicited.Load)
	s.advertisedRoots, s.rootsSync = s.rootsAdvertised(), &relay.RootsSync{}
	s.client = mcp.NewClient(&mcp.Implementation{Name: "mcpvisor", Version: s.deps.Version},
		s.relay.ClientOptions(s.advertisedRoots, s.catalogHandlers(root, self)))
	s.client.AddReceivingMiddleware(ackMiddleware(root, self), s.relay.ElicitationRelay)
	s.client.AddSendingMiddleware(s.relay.InputRequests(s.rootsSync)) // the first: innermost
	s.deps.Tracing.instrument(s.client, s.spec)                       // outermost: one span per request, its rounds inside
	if s.advertisedRoots {
		s.rootsSync.Want(s.rootsNow())
		s.rootsSync.Apply(s.client) // no session yet: nothing is sent
	}
	client, handler := s.client, s.oauth
	s.deps.Work.Add(1)
	go func() {
		defer s.deps.Work.Done()
		defer func() {
			// A panic here (a custom transport's Connect, say) would take
			// the whole process down: it is this session's failure instead.
			if p := recover(); p != nil {
				cn.SignalGroup(syscall.SIGKILL)
				cn.Reap()
				root.Send(self, &lifelineEnded{err: fmt.Errorf("session panicked: %v", p), exitCode: -1, tail: cn.StderrTail()})
			}
		}()
		if handler != nil {
			s.redactor.learn(handler.Secrets()...) // the stored token, read from disk
		}
		s.lifeline(s.ctx, self, root, cn, client)
	}()
}

// lifeline runs on its own goroutine and owns cn from dial to close.
//
// The client advertises only what mcpvisor can honour (see
// relay.Relay.ClientOptions): never the go-sdk's default roots, which a
// server would then ask for and could hang on to a stop for the whole
// grace.
func (s *sessionActor) lifeline(ctx context.Context, self *actor.PID, root *actor.RootContext, cn *transport.Conn, client *mcp.Client) {
	traced, span := s.deps.Tracing.startConnect(ctx, s.spec)
	cs, cat, cancel, err := s.connectStoppable(traced, client, cn)
	s.deps.Tracing.endConnect(ctx, span, cs, err)
	defer cn.Release()
	root.Send(self, &connected{cs: cs, pid: cn.PID(), cat: cat, err: err, transport: cn.Used(s.spec)})
	if err != nil {
		cn.SignalGroup(syscall.SIGKILL) // leftovers of a failed start
		cn.Reap()                       // should the go-sdk not have closed it
		// Asked to stop while connecting: that is a stop, not a failure.
		root.Send(self, &lifelineEnded{stopped: ctx.Err() != nil, err: err, exitCode: cn.ExitCode(), tail: cn.StderrTail()})
		return
	}
	defer cancel()
	died := make(chan error, 1)
	go func() { died <- cs.Wait() }()
	select {
	case err := <-died:
		cn.SignalGroup(syscall.SIGKILL) // grandchildren of a dead server
		_ = cs.Close()                  // releases what the session still holds (its listen subscription)
		root.Send(self, &lifelineEnded{err: cn.DeathError(err), exitCode: cn.ExitCode(), tail: cn.StderrTail()})
	case <-ctx.Done():
		s.close(cs, cn)
		<-died
		root.Send(self, &lifelineEnded{stopped: true})
	}
}

// connectStoppable is connect, stopped as close stops a live session when
// ctx ends meanwhile: the go-sdk closes the connection of a handshake it
// gave up on and waits for the process, which a server that ignores the
// end of its input (or is still downloading, under npx) would make last
// the transport's backstop, well past a client's patience.
func (s *sessionActor) connectStoppable(ctx context.Context, client *mcp.Client, cn *transport.Conn) (*mcp.ClientSession, Catalog, context.CancelFunc, error) {
	connecting, escalated := make(chan struct{}), make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(escalated)
		s.escalate(connecting, cn)
	})
	defer func() { // even if a custom transport's Connect panicked
		close(connecting)
		if !stop() {
			<-escalated
		}
	}()
	return s.connect(ctx, client, cn)
}

// connect dials and lists the Catalog, both bounded by the connect timeout on
// the quartz clock. The process itself is not tied to that deadline, but
// the dial context must outlive the handshake (an SSE transport reads its
// event stream under it), so on success it is returned for the lifeline to
// cancel when the session ends.
func (s *sessionActor) connect(ctx context.Context, client *mcp.Client, cn *transport.Conn) (*mcp.ClientSession, Catalog, context.CancelFunc, error) {
	timeout := s.spec.ConnectTimeout
	if timeout <= 0 {
		timeout = s.deps.ConnectTimeout
	}
	dctx, cancel := context.WithCancel(ctx)
	timer := s.deps.Clock.AfterFunc(timeout, cancel, "session", "connect")
	cs, err := transport.ConnectDetecting(dctx, client, cn, s.deps.Tracing.transports(cn, s.wrapTransport))
	var cat Catalog
	if err == nil {
		cat, err = listCatalog(dctx, s.spec.Name, cs, KindAll, s.redactor.catalog())
	}
	fired := !timer.Stop()
	if err == nil && !fired {
		return cs, cat, cancel, nil
	}
	cancel()
	if cs != nil {
		_ = cs.Close()
	}
	switch {
	case ctx.Err() != nil:
		return nil, Catalog{}, nil, errors.New("stopped while connecting")
	case fired:
		return nil, Catalog{}, nil, fmt.Errorf("no answer to the MCP handshake within %s (connect timeout)", timeout)
	case cn.Broken() != nil:
		return nil, Catalog{}, nil, fmt.Errorf("connect: server output refused: %w", cn.Broken())
	case transport.ClosedByServer(err) && cn.Exited():
		return nil, Catalog{}, nil, cn.HandshakeExit()
	case cn.Refused() != nil:
		// The go-sdk may report a refused write as the connection closing.
		return nil, Catalog{}, nil, fmt.Errorf("connect: %w", cn.Refused())
	default:
		return nil, Catalog{}, nil, fmt.Errorf("connect: %w", err)
	}
}

// close ends a live session gracefully: close it (stdin closes, the
// server should exit), then escalate to signals on the stop's schedule
// (stop.go). It returns once the session's Close returned, which for
// stdio means the process was reaped.
func (s *sessionActor) close(cs *mcp.ClientSession, cn *transport.Conn) {
	closed := make(chan struct{})
	go func() {
		_ = cs.Close() // informational only: servers often exit non-zero on EOF
		close(closed)
	}()
	s.escalate(closed, cn)
	cn.SignalGroup(syscall.SIGKILL) // anything the server left behind
}

func (s *sessionActor) connected(c actor.Context, m *connected) {
	if m.err != nil {
		// The lifeline follows up with lifelineEnded, which reports it.
		s.log.Debug("connect failed", zap.String("error", s.redactor.Redact(m.err.Error())))
		return
	}
	s.cs = m.cs
	s.publishLane(c, m.cs) // before the server is reported ready
	s.log.Debug("connected", zap.Int("pid", m.pid), zap.Int("tools", len(m.cat.Tools)),
		zap.Int("prompts", len(m.cat.Prompts)), zap.Int("resources", len(m.cat.Resources)), zap.Int("templates", len(m.cat.Templates)))
	c.Send(c.Parent(), &Ready{Server: s.spec.Name, ID: s.id, PID: m.pid, Catalog: m.cat, Transport: m.transport, Stderr: s.stderrReader()})
	s.scheduleProbe(c)
	s.applyLogLevel(s.deps.Relay.LogLevel(), nil)
	s.relistDirty(c) // the kinds whose list_changed came before this report
}

func (s *sessionActor) lifelineEnded(c actor.Context, m *lifelineEnded) {
	s.dropSession()
	s.ended = true
	s.stopProbe()
	s.stopRelists()
	if m.stopped || s.failed || s.ctx.Err() != nil {
		// Our own stop (or a death racing it, or the probe's verdict,
		// already reported): not a failure.
		s.finish(c)
		return
	}
	c.Send(c.Parent(), s.authFailure(&messages.ServerFailed{
		Server:     s.spec.Name,
		Session:    s.id,
		Error:      s.redactor.Redact(m.err.Error()),
		ExitCode:   m.exitCode,
		StderrTail: redactLines(s.redactor, m.tail),
	}))
	// The connection is gone; stay alive until the fleet actor stops us, so
	// that stale calls get a clear answer rather than a dead letter.
}

// stop asks the lifeline to close the connection; the session finishes
// when it has (or at once, if the connection is already gone).
func (s *sessionActor) stop(c actor.Context) {
	s.withdrawLane()
	s.stopProbe()
	s.stopRelists()
	s.cancel()
	if s.ended {
		s.finish(c)
	}
}

// stopping runs when the actor stops, whatever the reason (the fleet actor
// stopping, or this actor having panicked: it is never restarted). The
// lifeline, if any, closes the session and kills the process group.
func (s *sessionActor) stopping() {
	close(s.hurry) // before the cancel, which the lifeline sees first
	s.withdrawLane()
	s.stopProbe()
	s.stopRelists()
	if s.cancel != nil {
		s.cancel()
	}
}

// finish tells the fleet actor this session and its process are gone, and
// stops the actor.
func (s *sessionActor) finish(c actor.Context) {
	if s.finished {
		return
	}
	s.finished = true
	c.Send(c.Parent(), &Stopped{Server: s.spec.Name, ID: s.id})
	c.Stop(c.Self())
}

// listFailed fails the server over a listing that had to be cut: its
// Catalog cannot be trusted. The lifeline then closes the connection (and
// its process group) as for a stop.
func (s *sessionActor) listFailed(c actor.Context, err error) {
	s.stopProbe()
	s.stopRelists()
	s.dropSession()
	s.failed = true
	c.Send(c.Parent(), s.authFailure(&messages.ServerFailed{
		Server:     s.spec.Name,
		Session:    s.id,
		Error:      s.redactor.Redact(err.Error()),
		ExitCode:   -1,
		StderrTail: redactLines(s.redactor, s.stderr()),
	}))
	s.cancel()
}

// stderrReader returns a function that reads the live stderr tail,
// redacted, from any goroutine (the ring has its own lock); nil for HTTP.
func (s *sessionActor) stderrReader() func() []string {
	if s.conn == nil || !s.conn.Stdio() {
		return nil
	}
	cn, redactor := s.conn, s.redactor
	return func() []string { return redactLines(redactor, cn.StderrTail()) }
}

// stderr is the server's stderr tail so far (empty for HTTP).
func (s *sessionActor) stderr() []string {
	if s.conn == nil {
		return nil
	}
	return s.conn.StderrTail()
}
