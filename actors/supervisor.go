package actors

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpvisor/mcpvisor/actors/internal/catcache"
	"github.com/mcpvisor/mcpvisor/actors/internal/fleet"
	"github.com/mcpvisor/mcpvisor/actors/internal/testhook"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// Supervisor keeps MCP client sessions in line with a set of config
// files. Start it, read Tools and Status, call tools, Resync, follow
// events, and Close it. All methods are safe for concurrent use; reads
// never block and return copies.
type Supervisor struct {
	opts    Options
	sys     *actor.ActorSystem
	journal *journal.Journal
	tree    *fleet.Tree
	cache   *catcache.Cache // nil: the catalog cache is off
	// logLevel is the level of the last SetLogLevel (or Options.LogLevel).
	logLevel atomic.Pointer[string]
	// work counts every goroutine the Supervisor's parts start; cancel
	// ends every session's lifeline. Close stops the tree, cancels, then
	// waits for work.
	work   sync.WaitGroup
	cancel context.CancelFunc

	closeOnce sync.Once
	closeErr  error
}

// Tests reach the actor tree through actorstest, never through this API.
func init() { testhook.Tree = func(sup any) *fleet.Tree { return sup.(*Supervisor).tree } }

// Start builds the actors and starts supervising. It returns once the
// actors exist; servers come up on their own and are reported as events.
func Start(opts Options) (*Supervisor, error) {
	opts = opts.withDefaults()
	if len(opts.ConfigPaths) == 0 {
		return nil, fmt.Errorf("start: no config paths")
	}
	inherited, err := callEnviron(opts.Environ)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	s := &Supervisor{opts: opts, sys: newActorSystem(opts.Logger)}
	s.logLevel.Store(&opts.LogLevel)
	s.journal = newJournal(s.sys, opts)
	s.tree = fleet.Start(s.sys, s.fleetDeps(inherited))
	return s, nil
}

// Status returns a copy of the fleet's status. Once the Supervisor has
// failed, Status.Failed says why and the rows are the last ones seen.
func (s *Supervisor) Status() messages.Status {
	st := s.tree.Snapshot().Status()
	if err := s.tree.Failed(); err != nil {
		st.Failed = err.Error()
	}
	return st
}

// Tools returns the exposed tools of every ready server (and of every lazy
// server between sessions, which a call starts), and the cached ones
// (Tool.Cached) of every server that is not up yet and shows its last
// catalog (see Options.CacheDir), sorted by server and name. Expose each
// as QualifiedName(t.Prefix, t.Name). A failed Supervisor has none.
func (s *Supervisor) Tools() []messages.Tool {
	if s.tree.Failed() != nil {
		return []messages.Tool{}
	}
	return s.tree.Snapshot().Tools()
}

// Done is closed when the Supervisor has ended: by Close, or because a
// core actor failed (then every server is being stopped; Close still
// waits for them). Err says which.
func (s *Supervisor) Done() <-chan struct{} { return s.tree.Done() }

// Err is nil while the Supervisor runs. Once Done is closed it is
// ErrClosed after Close, or an error wrapping ErrFailed that names the
// actor that failed and why; every call then returns it at once.
func (s *Supervisor) Err() error { return s.tree.Err() }

// Resync re-reads every config file and retries every failed server now,
// without touching healthy unchanged ones. It returns the plan and, unless
// dryRun, waits (bounded by ctx) for the outcome of every server the plan
// started or retried.
func (s *Supervisor) Resync(ctx context.Context, dryRun bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error) {
	if err := s.Err(); err != nil {
		return nil, nil, err
	}
	return s.tree.Resync(ctx, dryRun)
}

// EventsSince returns the kept events after sequence number seq, oldest
// first; truncated reports that older ones were already dropped.
func (s *Supervisor) EventsSince(seq uint64) (events []*messages.Envelope, truncated bool) {
	return s.journal.Since(seq)
}

// Follow is the one way to follow the Supervisor's events: it replays the
// kept events after since (0: all of them; journal.Live: none), then
// delivers live events as they are published, with no gap and no
// duplicate, and recovers by itself when the reader falls behind (see
// journal.Feed). buffer is how many events the feed holds for a slow
// reader. The feed ends once the Supervisor is closed and its last events
// were delivered.
func (s *Supervisor) Follow(since uint64, buffer int) *journal.Feed {
	return s.journal.Follow(since, buffer)
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
		s.tree.End(ErrClosed)
		s.closeErr = s.tree.Stop(s.opts.StopGrace + closeBound)
		s.cancel() // no lifeline outlives Close
		if s.cache != nil {
			s.cache.Close() // the writer writes what is pending, then ends
		}
		s.work.Wait()
		s.journal.Close()
		s.sys.Shutdown()
	})
	return s.closeErr
}

// replyErr is the error a caller gets for a session's answer err: a
// supervisor that failed stops its sessions, whose answers ("not ready")
// can win the race with Done; the caller is told the failure instead.
func (s *Supervisor) replyErr(err error) error {
	if err != nil {
		if failed := s.tree.Failed(); failed != nil {
			return failed
		}
	}
	return err
}

// QualifiedName is how an item of a server is named across the fleet:
// prefix__name, or name alone when the prefix is empty. Expose a Tool or
// a Prompt as QualifiedName(Prefix, Name).
func QualifiedName(prefix, name string) string { return config.QualifiedName(prefix, name) }

// SplitName cuts an exposed name at its first "__" into a prefix and an
// item name; ok is false when it has no "__" with text on both sides.
func SplitName(name string) (prefix, item string, ok bool) { return config.SplitName(name) }
