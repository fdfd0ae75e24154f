package actors

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"go.uber.org/zap/zapcore"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// Supervisor is the embedding API: it keeps MCP client sessions in line
// with a set of config files. Start it, read Tools and Status, call tools,
// Resync, follow events, and Close it. All methods are safe for concurrent
// use; reads never block and return copies.
type Supervisor struct {
	env       *environment
	sys       *actor.ActorSystem
	ownSystem bool
	view      *fleetView
	pids      PIDs

	resyncs atomic.Uint64 // numbers resync requests

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// PIDs are the actors a test or an embedder can send messages to: inject
// messages.FileChanged or messages.ResyncRequested into Config,
// messages.ServerFailed into Reconciler.
type PIDs struct {
	Root, Reconciler, Config, Watcher *actor.PID
}

// Start builds the actors and starts supervising. It returns once the
// actors exist; servers come up on their own and are reported as events.
func Start(opts Options) (*Supervisor, error) {
	opts = opts.withDefaults()
	if len(opts.ConfigPaths) == 0 {
		return nil, fmt.Errorf("start: no config paths")
	}
	paths := reconciler.ResolvePaths(opts.ConfigPaths, opts.WorkDir, opts.Home)
	s := &Supervisor{view: &fleetView{}, closed: make(chan struct{})}
	s.sys = opts.ActorSystem
	if s.sys == nil {
		s.sys = NewActorSystem(opts.Logger)
		s.ownSystem = true
	}
	s.env = &environment{
		opts:       opts,
		clock:      opts.Clock,
		log:        opts.Logger,
		journal:    newJournal(s.sys, opts.Clock, opts.JournalSize),
		readConfig: ReadConfigFiles,
		redactor:   reconciler.NewRedactor(append(inheritedSecrets(opts.Environ()), opts.Secrets...)...),
	}
	s.env.logLevel.Store(&opts.LogLevel)
	started := make(chan PIDs, 1)
	props := actor.PropsFromProducer(func() actor.Actor {
		return &rootActor{env: s.env, view: s.view, paths: paths, started: started}
	}, actor.WithSupervisor(actor.NewOneForOneStrategy(0, time.Second, actor.DefaultDecider)))
	s.sys.Root.SpawnPrefix(props, "mcpvisor")
	s.pids = <-started
	return s, nil
}

// NewActorSystem returns an actor system whose own logs go to logger
// (warnings and errors only: protoactor's info lines are noise here).
func NewActorSystem(logger *zap.Logger) *actor.ActorSystem {
	l := logger.Named("protoactor").WithOptions(zap.IncreaseLevel(zapcore.WarnLevel))
	return actor.NewActorSystem(
		actor.WithLoggerFactory(func(sys *actor.ActorSystem) *slog.Logger {
			return slog.New(zapslog.NewHandler(l.Core(), zapslog.WithName(l.Name())))
		}),
		actor.WithDeadLetterThrottleInterval(10*time.Millisecond),
		actor.WithDeadLetterRequestLogging(false),
	)
}

// rootActor parents every other actor, so one stop stops them all.
type rootActor struct {
	env     *environment
	view    *fleetView
	paths   []string
	started chan<- PIDs
}

func (a *rootActor) Receive(c actor.Context) {
	if _, ok := c.Message().(*actor.Started); !ok {
		return
	}
	p := PIDs{Root: c.Self()}
	p.Reconciler = c.SpawnPrefix(newReconcilerProps(a.env, a.view, a.paths), "reconciler")
	p.Config = c.SpawnPrefix(newConfigProps(a.env, p.Reconciler, a.paths), "config")
	if !a.env.opts.DisableWatch {
		p.Watcher = c.SpawnPrefix(newWatcherProps(a.env, p.Config, a.paths), "watcher")
	}
	select {
	case a.started <- p:
	default: // a restart: the Supervisor already has its PIDs
	}
}

// PIDs returns the actors' process ids, for message injection.
func (s *Supervisor) PIDs() PIDs { return s.pids }

// ActorSystem returns the actor system the supervisor lives in; its event
// stream carries every *messages.Envelope.
func (s *Supervisor) ActorSystem() *actor.ActorSystem { return s.sys }

// Status returns a copy of the fleet's status.
func (s *Supervisor) Status() messages.Status {
	return s.view.load().status()
}

// Tools returns the exposed tools of every ready server, sorted by server
// and name. Expose each as QualifiedName(t.Server, t.Name).
func (s *Supervisor) Tools() []messages.Tool {
	return s.view.load().tools()
}

// QualifiedName is how a tool is named across the fleet: server__tool.
func QualifiedName(server, tool string) string { return server + "__" + tool }

// SplitName splits a server__tool name at its first "__" (server names
// cannot contain "__", tool names may).
func SplitName(name string) (server, tool string, err error) {
	server, tool, ok := strings.Cut(name, "__")
	if !ok || server == "" || tool == "" {
		return "", "", fmt.Errorf("%w: %q", ErrBadToolName, name)
	}
	return server, tool, nil
}

// CallTool calls a tool by its server__tool name. A result with IsError set
// is a successful call. Errors wrap ErrBadToolName, ErrUnknownServer,
// ErrUnknownTool, ErrNotReady, ErrUpstream, ErrCallTimeout or ErrCanceled.
// Options ask for progress (WithProgress) or set the call's log level
// (WithLogLevel); WithCaller on ctx says on whose behalf it is made.
func (s *Supervisor) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*mcp.CallToolResult, error) {
	server, tool, err := SplitName(name)
	if err != nil {
		return nil, err
	}
	rt, ok := s.view.load().row(server)
	switch {
	case s.isClosed():
		return nil, ErrClosed
	case !ok:
		return nil, fmt.Errorf("%w: %q", ErrUnknownServer, server)
	case !rt.ready:
		return nil, fmt.Errorf("%w: %q", ErrNotReady, server)
	case !rt.exposed[tool]:
		return nil, fmt.Errorf("%w: %q has no tool %q", ErrUnknownTool, server, tool)
	}
	reply := make(chan callResult, 1)
	// The session answers within the call timeout; this bound only covers
	// a session that stopped with the call still in its mailbox.
	d := rt.callTimeout + s.env.opts.StopGrace + time.Second
	bound := s.env.clock.NewTimer(d, "supervisor", "call-bound")
	defer bound.Stop("supervisor", "call-bound")
	o := buildCallOptions(opts)
	if rt.resetOnProgress {
		o.progress = resettingProgress(o.progress, func() { bound.Reset(d, "supervisor", "call-bound") })
	}
	s.sys.Root.Send(rt.session, &callTool{ctx: ctx, tool: tool, args: args, timeout: rt.callTimeout,
		resetOnProgress: rt.resetOnProgress, opts: o, reply: reply})
	select {
	case r := <-reply:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrCanceled, ctx.Err())
	case <-s.closed:
		return nil, ErrClosed
	case <-bound.C:
		return nil, fmt.Errorf("%w: no answer from %q's session", ErrNotReady, server)
	}
}

// Resync re-reads every config file and retries every failed server now,
// without touching healthy unchanged ones. It returns the plan and, unless
// dryRun, waits (bounded by ctx) for the outcome of every server the plan
// started or retried.
func (s *Supervisor) Resync(ctx context.Context, dryRun bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error) {
	if s.isClosed() {
		return nil, nil, ErrClosed
	}
	id := fmt.Sprintf("resync-%d", s.resyncs.Add(1))
	replies := make(chan messages.Event, 2)
	// Registered before the request leaves: the config actor's answer
	// reaches the reconciler after this.
	s.sys.Root.Send(s.pids.Reconciler, &awaitResync{id: id, reply: replies})
	defer func() {
		if !s.isClosed() {
			s.sys.Root.Send(s.pids.Reconciler, &forgetResync{id: id})
		}
	}()
	s.sys.Root.Send(s.pids.Config, &messages.ResyncRequested{ID: id, DryRun: dryRun})
	var planned *messages.ResyncPlanned
	for {
		select {
		case m := <-replies:
			switch m := m.(type) {
			case *messages.ResyncPlanned:
				planned = m
				if dryRun {
					return planned, nil, nil
				}
			case *messages.ResyncCompleted:
				return planned, m, nil
			}
		case <-ctx.Done():
			return planned, nil, ctx.Err()
		case <-s.closed:
			return planned, nil, ErrClosed
		}
	}
}

// EventsSince returns the kept events after sequence number seq, oldest
// first; truncated reports that older ones were already dropped.
func (s *Supervisor) EventsSince(seq uint64) (events []*messages.Envelope, truncated bool) {
	return s.env.journal.since(seq)
}

func (s *Supervisor) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// Close stops every actor, every server process and every goroutine the
// supervisor started. Servers get StopGrace to exit before their process
// groups are signalled, so Close returns within about StopGrace plus a
// second, even during a hung connect. It is idempotent.
func (s *Supervisor) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		if err := s.sys.Root.PoisonFuture(s.pids.Root).Wait(); err != nil {
			s.closeErr = fmt.Errorf("stop actors: %w", err)
		}
		s.env.work.Wait()
		if s.ownSystem {
			s.sys.Shutdown()
		}
	})
	return s.closeErr
}
