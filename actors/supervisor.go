package actors

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/internal/catcache"
	"github.com/mcpvisor/mcpvisor/actors/internal/fleet"
	"github.com/mcpvisor/mcpvisor/actors/internal/testhook"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// Supervisor keeps MCP client sessions in line with a set of config files.
// Its methods are safe for concurrent use; reads never block and return
// copies.
type Supervisor struct {
	opts    Options
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

// Start builds the actors and starts supervising. Servers come up on their
// own, reported as events.
func Start(opts Options) (*Supervisor, error) {
	opts = opts.withDefaults()
	if len(opts.ConfigPaths) == 0 {
		return nil, fmt.Errorf("start: no config paths")
	}
	inherited, err := callEnviron(opts.Environ)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	s := &Supervisor{opts: opts}
	sys := newActorSystem(opts.Logger)
	s.logLevel.Store(&opts.LogLevel)
	s.journal = newJournal(sys, opts)
	s.tree = fleet.Start(sys, s.fleetDeps(inherited))
	return s, nil
}

// Status returns the fleet's status; once the Supervisor has failed,
// Status.Failed says why.
func (s *Supervisor) Status() messages.Status {
	st := s.tree.Snapshot().Status()
	if err := s.tree.Failed(); err != nil {
		st.Failed = err.Error()
	}
	return st
}

// Tools returns the tools of every ready or lazy server, and the cached ones
// of servers not up yet, sorted by server and name.
func (s *Supervisor) Tools() []messages.Tool {
	if s.tree.Failed() != nil {
		return []messages.Tool{}
	}
	return s.tree.Snapshot().Tools()
}

// Done is closed when the Supervisor has ended: by Close, or a failure.
func (s *Supervisor) Done() <-chan struct{} { return s.tree.Done() }

// Err is nil while the Supervisor runs, then ErrClosed or an error wrapping
// ErrFailed; every call then returns it.
func (s *Supervisor) Err() error { return s.tree.Err() }

// Resync re-reads the config and retries every failed server now; unless
// dryRun, it waits (bounded by ctx) for the outcome of what it started.
func (s *Supervisor) Resync(ctx context.Context, dryRun bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error) {
	if err := s.Err(); err != nil {
		return nil, nil, err
	}
	return s.tree.Resync(ctx, dryRun)
}

// Follow replays the kept events after since (0: all; journal.Live: none),
// then delivers live ones, with no gap and no duplicate, until Close.
func (s *Supervisor) Follow(since uint64, buffer int) *journal.Feed {
	return s.journal.Follow(since, buffer)
}

// closeBound is how long Close waits for the actors beyond StopGrace
// before it stops waiting for them (a core actor that cannot stop): the
// sessions' lifelines are ended directly, and they are bounded by the
// stop grace on their own.
const closeBound = 5 * time.Second

// Close stops every actor, server and goroutine the Supervisor started,
// within about CloseGrace (StopGrace and a second if it is zero), then
// ends every Feed. It is idempotent.
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
		s.tree.System().Shutdown()
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

// QualifiedName is an item's fleet-wide name: prefix__name, or name when the
// prefix is empty.
func QualifiedName(prefix, name string) string { return config.QualifiedName(prefix, name) }

// SplitName cuts an exposed name at its first "__".
func SplitName(name string) (prefix, item string, ok bool) { return config.SplitName(name) }
