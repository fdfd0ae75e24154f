package actors

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"go.uber.org/zap/zapcore"

	"github.com/mcpvisor/mcpvisor/actors/internal/intake"
	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/journal"
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
	uses    atomic.Uint64 // numbers the uses of lazy servers

	closeOnce sync.Once
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
	secrets, err := callEnviron(opts.Environ)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	s := &Supervisor{view: &fleetView{}}
	s.sys = opts.ActorSystem
	if s.sys == nil {
		s.sys = NewActorSystem(opts.Logger)
		s.ownSystem = true
	}
	s.env = &environment{
		opts:     opts,
		clock:    opts.Clock,
		log:      opts.Logger,
		journal:  newJournal(s.sys, opts),
		redactor: reconciler.NewRedactor(append(inheritedSecrets(secrets), opts.Secrets...)...),
		ending:   newEnding(),
	}
	s.env.logLevel.Store(&opts.LogLevel)
	s.env.ctx, s.env.cancel = baseContext()
	s.env.sessions = s.env.sessionDeps()
	s.env.intake = s.env.intakeDeps(paths)
	s.env.startCatalogCache()
	started := make(chan PIDs, 1)
	props := actor.PropsFromProducer(func() actor.Actor {
		return &rootActor{env: s.env, view: s.view, paths: paths, started: started}
	})
	s.sys.Root.SpawnPrefix(props, "mcpvisor")
	s.pids = <-started
	return s, nil
}

// newJournal is a Supervisor's journal: stamped by its clock, bounded
// as opts say, and published on its actor system's event stream.
func newJournal(sys *actor.ActorSystem, opts Options) *journal.Journal {
	return journal.New(journal.Options{
		MaxEvents: opts.JournalSize,
		MaxBytes:  opts.JournalBytes,
		Now:       func() time.Time { return opts.Clock.Now("journal", "stamp") },
		Stream:    sys.EventStream,
		Logger:    opts.Logger.Named("journal"),
	})
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

// rootActor parents every other actor, so one stop stops them all, and
// it is their supervisor strategy (failure.go).
type rootActor struct {
	env     *environment
	view    *fleetView
	paths   []string
	started chan<- PIDs

	sys             *actor.ActorSystem
	pids            PIDs
	watcherFailures []time.Time
}

func (a *rootActor) Receive(c actor.Context) {
	if _, ok := c.Message().(*actor.Started); !ok {
		return
	}
	a.sys = c.ActorSystem()
	p := PIDs{Root: c.Self()}
	p.Reconciler = c.SpawnPrefix(newReconcilerProps(a.env, a.view, a.paths), "reconciler")
	p.Config = c.SpawnPrefix(intake.ConfigProps(a.env.intake, p.Reconciler), "config")
	if !a.env.opts.DisableWatch {
		p.Watcher = c.SpawnPrefix(intake.WatcherProps(a.env.intake, p.Config), "watcher")
	}
	a.pids = p
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

// Status returns a copy of the fleet's status. Once the Supervisor has
// failed, Status.Failed says why and the rows are the last ones seen.
func (s *Supervisor) Status() messages.Status {
	st := s.view.Load().Status()
	if err := s.env.ending.failed(); err != nil {
		st.Failed = err.Error()
	}
	return st
}

// Tools returns the exposed tools of every ready server (and of every lazy
// server between sessions, which a call starts), and the cached ones
// (Tool.Cached) of every server that is not up yet and shows its last
// catalog (see Options.CacheDir), sorted by server and name. Expose each
// as QualifiedName(t.Prefix, t.Name). A failed
// Supervisor has none.
func (s *Supervisor) Tools() []messages.Tool {
	if s.env.ending.failed() != nil {
		return []messages.Tool{}
	}
	return s.view.Load().Tools()
}

// Done is closed when the Supervisor has ended: by Close, or because a
// core actor failed (then every server is being stopped; Close still
// waits for them). Err says which.
func (s *Supervisor) Done() <-chan struct{} { return s.env.ending.done }

// Err is nil while the Supervisor runs. Once Done is closed it is
// ErrClosed after Close, or an error wrapping ErrFailed that names the
// actor that failed and why; every call then returns it at once.
func (s *Supervisor) Err() error { return s.env.ending.Err() }

// replyErr is the error a caller gets for a session's answer err: a
// supervisor that failed stops its sessions, whose answers ("not ready")
// can win the race with Done; the caller is told the failure instead.
func (s *Supervisor) replyErr(err error) error {
	if err != nil {
		if failed := s.env.ending.failed(); failed != nil {
			return failed
		}
	}
	return err
}

// CallTool calls a tool by its exposed name, QualifiedName(prefix, tool).
// A result with IsError set is a successful call. Errors wrap
// ErrBadToolName, ErrUnknownServer, ErrUnknownTool, ErrNotReady,
// ErrUpstream, ErrCallTimeout or ErrCanceled, or are Err (ErrClosed,
// ErrFailed) once the Supervisor has ended. Options ask for progress
// (WithProgress) or set the call's log level (WithLogLevel); WithCaller
// on ctx says on whose behalf it is made.
func (s *Supervisor) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*mcp.CallToolResult, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	rt, tool, err := s.view.Load().RouteTool(name)
	if err != nil {
		return nil, err
	}
	res, err := s.request(ctx, rt, func(ctx context.Context, cs *mcp.ClientSession) (any, error) {
		p := &mcp.CallToolParams{Name: tool, Arguments: args}
		relay.Params(ctx, cs, p)
		return cs.CallTool(ctx, p)
	}, opts...)
	if err != nil {
		return nil, err
	}
	out, _ := res.(*mcp.CallToolResult)
	return out, nil
}

// Resync re-reads every config file and retries every failed server now,
// without touching healthy unchanged ones. It returns the plan and, unless
// dryRun, waits (bounded by ctx) for the outcome of every server the plan
// started or retried.
func (s *Supervisor) Resync(ctx context.Context, dryRun bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error) {
	if err := s.Err(); err != nil {
		return nil, nil, err
	}
	id := fmt.Sprintf("resync-%d", s.resyncs.Add(1))
	replies := make(chan messages.Event, 2)
	// Registered before the request leaves: the config actor's answer
	// reaches the reconciler after this.
	s.sys.Root.Send(s.pids.Reconciler, &awaitResync{id: id, reply: replies})
	defer func() {
		if s.Err() == nil { // a stopped reconciler needs no forgetting
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
		case <-s.env.ending.done:
			return planned, nil, s.Err()
		}
	}
}

// EventsSince returns the kept events after sequence number seq, oldest
// first; truncated reports that older ones were already dropped.
func (s *Supervisor) EventsSince(seq uint64) (events []*messages.Envelope, truncated bool) {
	return s.env.journal.Since(seq)
}

// Follow is the one way to follow the Supervisor's events: it replays the
// kept events after since (0: all of them; Live: none), then delivers
// live events as they are published, with no gap and no duplicate, and
// recovers by itself when the reader falls behind (see Feed). buffer is
// how many events the feed holds for a slow reader. The feed ends once the
// Supervisor is closed and its last events were delivered.
func (s *Supervisor) Follow(since uint64, buffer int) *journal.Feed {
	return s.env.journal.Follow(since, buffer)
}

// closeBound is how long Close waits for the actors beyond StopGrace
// before it stops waiting for them (a core actor that cannot stop): the
// sessions' lifelines are ended directly, and they are bounded by the
// stop grace on their own.
const closeBound = 5 * time.Second

// Close stops every actor, every server process and every goroutine the
// supervisor started, then ends every Feed once it delivered the last
// events. Servers get StopGrace to exit before their process groups are
// signalled, so Close returns within about StopGrace plus a second, even
// during a hung connect, and within StopGrace plus closeBound (5s) even
// if a failed core actor cannot stop. It is idempotent, and also needed
// after a failure (Err then stays the failure). It returns nil unless
// stopping itself went wrong.
func (s *Supervisor) Close() error {
	s.closeOnce.Do(func() {
		s.env.ending.end(ErrClosed)
		s.closeErr = s.stopActors()
		s.env.cancel() // no lifeline outlives Close
		if s.env.catalogs != nil {
			s.env.catalogs.Close() // the writer writes what is pending, then ends
		}
		s.env.work.Wait()
		s.env.journal.Close()
		if s.ownSystem {
			s.sys.Shutdown()
		}
	})
	return s.closeErr
}

// stopActors poisons the root actor (the queued messages are handled
// first) and waits for the whole tree to stop, at most StopGrace plus
// closeBound.
func (s *Supervisor) stopActors() error {
	stopped := make(chan error, 1)
	go func() { stopped <- s.sys.Root.PoisonFuture(s.pids.Root).Wait() }()
	bound := s.env.clock.NewTimer(s.env.opts.StopGrace+closeBound, "supervisor", "close-bound")
	defer bound.Stop("supervisor", "close-bound")
	select {
	case err := <-stopped:
		if err != nil {
			return fmt.Errorf("stop actors: %w", err)
		}
		return nil
	case <-bound.C:
		return fmt.Errorf("stop actors: not stopped within %s", s.env.opts.StopGrace+closeBound)
	}
}
