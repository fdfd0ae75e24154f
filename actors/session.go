package actors

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/internal/transport"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
)

// sessionActor owns one live MCP client session: the process or HTTP
// connection, its tool list and its in-flight calls.
//
// One goroutine, the lifeline, owns the connection for its whole life: it
// dials, reports the result, waits for the session to die or for the actor
// to ask it to stop, closes the session (grace period, then the process
// group is signalled) and reports that it is done. The actor only reads
// its reports and cancels its context. A request (tool call, prompt get,
// resource read, completion) runs on its caller's goroutine, with the lane
// the actor publishes while the session is connected (session_lane.go).
// The actor's own goroutines are counted in env.work, which Close waits
// for.
type sessionActor struct {
	env  *environment
	spec messages.ServerSpec
	id   uint64
	log  *zap.Logger
	// handle is what rows hold of this actor: its gone channel, and the
	// lane requests take while the session is connected (session_lane.go).
	handle *sessionHandle
	// redactor knows this server's secrets, and learns the tokens the
	// session obtains.
	redactor *sessionRedactor
	// oauth authorizes a remote session's requests; nil for stdio servers
	// and for servers with an Authorization header of their own.
	oauth *oauth.Handler

	ctx    context.Context // cancelled when the session must stop
	cancel context.CancelFunc
	cs     *mcp.ClientSession // set once connected
	calls  chan struct{}      // bounds concurrent calls
	listN  [3]uint64          // generation of the newest listing, per kind (see catalogKinds)
	conn   *transport.Conn    // for the stderr tail; owned by the lifeline

	probeTimer  *quartz.Timer
	probeN      uint64 // generation of the probe schedule
	probeMisses int
	// relistPending records the kinds whose list_changed arrived before
	// the connection was handed over; they are listed once it is.
	relistPending catalogKinds
	// subs are the resource subscriptions this session holds upstream.
	subs map[string]*upstreamSub
	// failed is set once this session reported ServerFailed, so its
	// lifeline's end is not reported twice.
	failed bool
	// ended: the lifeline is done, the connection gone; finished: the
	// reconciler was told and the actor is stopping.
	ended, finished bool

	// relay carries progress, log messages and requests from the server
	// back to their callers (package relay); client is the go-sdk
	// client of this session, whose roots rootsSync keeps in line.
	relay           *relay.Relay
	client          *mcp.Client
	advertisedRoots bool
	rootsSync       *relay.RootsSync
}

// Messages private to the session actor.
type (
	// connected is the lifeline's dial result.
	connected struct {
		cs  *mcp.ClientSession
		pid int
		cat catalog
		err error
		// transport is the transport that worked (see connectDetecting).
		transport messages.Transport
	}
	// lifelineEnded says the connection is gone: it died (err, exit code) or
	// was closed because the actor asked (stopped).
	lifelineEnded struct {
		stopped  bool
		err      error
		exitCode int
		tail     []string
	}
	// listChanged is a notifications/{tools,prompts,resources}/list_changed.
	listChanged struct{ kinds catalogKinds }
	// catalogListed is a re-list's result.
	catalogListed struct {
		kinds catalogKinds
		n     uint64
		cat   catalog
		err   error
	}
	// stopSession asks for a graceful stop; the session answers its parent
	// with sessionStopped once the process is gone, then stops itself.
	stopSession struct{}
)

// Reports from a session to its parent, the reconciler.
type (
	sessionReady struct {
		server string
		id     uint64
		pid    int
		cat    catalog
		// transport is the transport that worked.
		transport messages.Transport
		// stderr returns the server's stderr tail, redacted, at the time
		// of the call (nil for HTTP servers).
		stderr func() []string
	}
	// sessionCatalog reports the kinds of a re-list (cat.kinds).
	sessionCatalog struct {
		server string
		id     uint64
		cat    catalog
	}
	sessionStopped struct {
		server string
		id     uint64
	}
)

func newSessionProps(env *environment, spec messages.ServerSpec, id uint64, handle *sessionHandle) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &sessionActor{
			env:    env,
			spec:   spec,
			id:     id,
			handle: handle,
			log:    env.log.Named("session").With(zap.String("server", spec.Name), zap.Uint64("session", id)),
			calls:  make(chan struct{}, env.opts.MaxCallsPerServer),

			redactor: newSessionRedactor(env.redactorFor(spec)),
		}
	})
}

func (s *sessionActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		s.start(c)
	case *connected:
		s.connected(c, m)
	case *lifelineEnded:
		s.lifelineEnded(c, m)
	case *listChanged:
		s.relist(c, m.kinds)
	case *catalogListed:
		s.catalogListed(c, m)
	case *subscribeUpstream:
		s.subscribe(c, m)
	case *unsubscribeUpstream:
		s.unsubscribe(c, m)
	case *upstreamSubscribed:
		s.subscribed(c, m)
	case *resourceUpdated:
		s.resourceUpdated(c, m)
	case *subscriptionsAcked:
		s.acked(m)
	case *probeDue:
		s.probe(c, m)
	case *probeResult:
		s.probed(c, m)
	case *setLogLevel:
		s.applyLogLevel(m.level, m.done)
	case *updateRoots:
		s.updateRoots(m)
	case *refreshRoots:
		s.pushRoots()
	case *authNeeded:
		s.authNeeded(c)
	case *stopSession:
		s.stop(c)
	case *actor.Stopping:
		s.stopping()
	case *actor.Stopped:
		close(s.handle.gone) // the lane went at Stopping
	}
}

func (s *sessionActor) start(c actor.Context) {
	s.ctx, s.cancel = context.WithCancel(s.env.ctx)
	self, root := c.Self(), c.ActorSystem().Root
	environ, err := callEnviron(func() []string { return s.env.environFor(s.spec) })
	var cn *transport.Conn
	if err == nil {
		cn, err = transport.Dial(s.spec, s.env.opts.Dial, environ, s.env.opts.StopGrace, s.env.clock)
	}
	if err == nil && s.spec.HeadersHelper != "" {
		var helperEnv []string
		if helperEnv, err = callEnviron(s.env.opts.Environ); err == nil {
			cn.UseHeadersHelper(s.spec, helperEnv)
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
	cn.OnStart(func(pid int) { root.Send(parent, &sessionSpawned{id: s.id, pid: pid}) })
	s.conn = cn
	s.relay = relay.New(s.env.relayDeps(), s.spec, s.id, s.redactor)
	s.advertisedRoots, s.rootsSync = s.rootsAdvertised(), &relay.RootsSync{}
	s.client = mcp.NewClient(&mcp.Implementation{Name: "mcpvisor", Version: Version},
		s.relay.ClientOptions(s.advertisedRoots, s.catalogHandlers(root, self)))
	s.client.AddReceivingMiddleware(ackMiddleware(root, self), s.relay.ElicitationRelay)
	s.client.AddSendingMiddleware(s.relay.InputRequests(s.rootsSync)) // the first: innermost
	s.env.tracing.instrument(s.client, s.spec)                        // outermost: one span per request, its rounds inside
	if s.advertisedRoots {
		s.rootsSync.Want(s.rootsNow())
		s.rootsSync.Apply(s.client) // no session yet: nothing is sent
	}
	client := s.client
	s.env.work.Add(1)
	go func() {
		defer s.env.work.Done()
		defer func() {
			// A panic here (a custom transport's Connect, say) would take
			// the whole process down: it is this session's failure instead.
			if p := recover(); p != nil {
				cn.SignalGroup(syscall.SIGKILL)
				root.Send(self, &lifelineEnded{err: fmt.Errorf("session panicked: %v", p), exitCode: -1, tail: cn.StderrTail()})
			}
		}()
		s.lifeline(s.ctx, self, root, cn, client)
	}()
}

// lifeline runs on its own goroutine and owns cn from dial to close.
//
// The client advertises only what mcpvisor can honour (see
// sessionRelay.clientOptions): never the go-sdk's default roots, which a
// server would then ask for and could hang on to a stop for the whole
// grace.
func (s *sessionActor) lifeline(ctx context.Context, self *actor.PID, root *actor.RootContext, cn *transport.Conn, client *mcp.Client) {
	traced, span := s.env.tracing.startConnect(ctx, s.spec)
	cs, cat, cancel, err := s.connect(traced, client, cn)
	s.env.tracing.endConnect(ctx, span, cs, err)
	defer cn.Release()
	root.Send(self, &connected{cs: cs, pid: cn.PID(), cat: cat, err: err, transport: cn.Used(s.spec)})
	if err != nil {
		cn.SignalGroup(syscall.SIGKILL) // leftovers of a failed start
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

// connect dials and lists the catalog, both bounded by the connect timeout on
// the quartz clock. The process itself is not tied to that deadline, but
// the dial context must outlive the handshake (an SSE transport reads its
// event stream under it), so on success it is returned for the lifeline to
// cancel when the session ends.
func (s *sessionActor) connect(ctx context.Context, client *mcp.Client, cn *transport.Conn) (*mcp.ClientSession, catalog, context.CancelFunc, error) {
	timeout := s.spec.ConnectTimeout
	if timeout <= 0 {
		timeout = s.env.opts.ConnectTimeout
	}
	dctx, cancel := context.WithCancel(ctx)
	timer := s.env.clock.AfterFunc(timeout, cancel, "session", "connect")
	cs, err := transport.ConnectDetecting(dctx, client, cn, s.env.tracing.transports(cn, s.relay.OrderedTransport))
	var cat catalog
	if err == nil {
		cat, err = listCatalog(dctx, s.spec.Name, cs, kindAll)
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
		return nil, catalog{}, nil, errors.New("stopped while connecting")
	case fired:
		return nil, catalog{}, nil, fmt.Errorf("no answer to the MCP handshake within %s (connect timeout)", timeout)
	case transport.ClosedByServer(err) && cn.Exited():
		return nil, catalog{}, nil, cn.HandshakeExit()
	case cn.Refused() != nil:
		// The go-sdk may report a refused write as the connection closing.
		return nil, catalog{}, nil, fmt.Errorf("connect: %w", cn.Refused())
	default:
		return nil, catalog{}, nil, fmt.Errorf("connect: %w", err)
	}
}

// close ends a live session gracefully: close it (stdin closes, the
// server should exit), wait the grace period, then SIGTERM and, a second
// later, SIGKILL the whole process group. It returns once the session's
// Close returned, which for stdio means the process was reaped.
func (s *sessionActor) close(cs *mcp.ClientSession, cn *transport.Conn) {
	closed := make(chan struct{})
	go func() {
		_ = cs.Close() // informational only: servers often exit non-zero on EOF
		close(closed)
	}()
	grace := s.env.clock.NewTimer(s.env.opts.StopGrace, "session", "stop-grace")
	defer grace.Stop()
	select {
	case <-closed:
		cn.SignalGroup(syscall.SIGKILL) // anything the server left behind
		return
	case <-grace.C:
	}
	cn.SignalGroup(syscall.SIGTERM)
	kill := s.env.clock.NewTimer(time.Second, "session", "stop-kill")
	defer kill.Stop()
	select {
	case <-closed:
	case <-kill.C:
	}
	cn.SignalGroup(syscall.SIGKILL)
	<-closed
}

func (s *sessionActor) connected(c actor.Context, m *connected) {
	if m.err != nil {
		// The lifeline follows up with lifelineEnded, which reports it.
		s.log.Debug("connect failed", zap.String("error", s.redactor.Redact(m.err.Error())))
		return
	}
	s.cs = m.cs
	s.publishLane(c, m.cs) // before the server is reported ready
	s.log.Debug("connected", zap.Int("pid", m.pid), zap.Int("tools", len(m.cat.tools)),
		zap.Int("prompts", len(m.cat.prompts)), zap.Int("resources", len(m.cat.resources)), zap.Int("templates", len(m.cat.templates)))
	c.Send(c.Parent(), &sessionReady{server: s.spec.Name, id: s.id, pid: m.pid, cat: m.cat, transport: m.transport, stderr: s.stderrReader()})
	s.scheduleProbe(c)
	s.applyLogLevel(s.env.upstreamLogLevel(), nil)
	if kinds := s.relistPending; kinds != 0 {
		s.relistPending = 0
		s.relist(c, kinds)
	}
}

func (s *sessionActor) lifelineEnded(c actor.Context, m *lifelineEnded) {
	s.dropSession()
	s.ended = true
	s.stopProbe()
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
	// The connection is gone; stay alive until the reconciler stops us, so
	// that stale calls get a clear answer rather than a dead letter.
}

// stop asks the lifeline to close the connection; the session finishes
// when it has (or at once, if the connection is already gone).
func (s *sessionActor) stop(c actor.Context) {
	s.withdrawLane()
	s.stopProbe()
	s.cancel()
	if s.ended {
		s.finish(c)
	}
}

// stopping runs when the actor stops, whatever the reason (the reconciler
// stopping, or this actor having panicked: it is never restarted). The
// lifeline, if any, closes the session and kills the process group.
func (s *sessionActor) stopping() {
	s.withdrawLane()
	s.stopProbe()
	if s.cancel != nil {
		s.cancel()
	}
}

// finish tells the reconciler this session and its process are gone, and
// stops the actor.
func (s *sessionActor) finish(c actor.Context) {
	if s.finished {
		return
	}
	s.finished = true
	c.Send(c.Parent(), &sessionStopped{server: s.spec.Name, id: s.id})
	c.Stop(c.Self())
}

// listFailed fails the server over a listing that had to be cut: its
// catalog cannot be trusted. The lifeline then closes the connection (and
// its process group) as for a stop.
func (s *sessionActor) listFailed(c actor.Context, err error) {
	s.stopProbe()
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
