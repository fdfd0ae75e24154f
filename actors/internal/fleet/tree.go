package fleet

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpvisor/mcpvisor/actors/internal/intake"
	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/actors/internal/view"
	"github.com/mcpvisor/mcpvisor/messages"
)

// The view of the fleet, its rows routing to session actors.
type (
	View     = view.View[*session.Handle]
	Snapshot = view.Snapshot[*session.Handle]
	Row      = view.Row[*session.Handle]
)

// PIDs are the tree's core actors.
type PIDs struct {
	Root, Fleet, Config, Watcher *actor.PID
}

// Tree is one Supervisor's running actor tree: a root actor (the failure
// policy of the others, failure.go) over the fleet actor, the config
// actor and the watcher actor. Its methods are what the Supervisor asks
// of it; safe for concurrent use.
type Tree struct {
	deps   *Deps
	sys    *actor.ActorSystem
	pids   PIDs
	view   View
	ending *ending
	// stopped is closed once the root actor, and so every actor, has
	// stopped.
	stopped chan struct{}

	resyncs atomic.Uint64 // numbers the resync requests
	uses    atomic.Uint64 // numbers the uses of lazy servers
}

// Start spawns the tree in sys and returns once its actors exist;
// servers come up on their own and are reported as events.
func Start(sys *actor.ActorSystem, deps *Deps) *Tree {
	t := &Tree{deps: deps, sys: sys, ending: newEnding(), stopped: make(chan struct{})}
	started := make(chan PIDs, 1)
	sys.Root.SpawnPrefix(actor.PropsFromProducer(func() actor.Actor {
		return &rootActor{tree: t, started: started}
	}), "mcpvisor")
	t.pids = <-started
	return t
}

// rootActor parents every other actor, so one stop stops them all, and
// it is their supervisor strategy (failure.go).
type rootActor struct {
	tree    *Tree
	started chan<- PIDs

	pids            PIDs // its own copy: Start reads the channel on another goroutine
	watcherFailures []time.Time
}

func (a *rootActor) Receive(c actor.Context) {
	switch c.Message().(type) {
	case *actor.Started:
		a.start(c)
	case *actor.Stopped: // after every child stopped
		close(a.tree.stopped)
	}
}

// start spawns the core actors.
func (a *rootActor) start(c actor.Context) {
	d := a.tree.deps
	p := PIDs{Root: c.Self()}
	p.Fleet = c.SpawnPrefix(newFleetProps(d, &a.tree.view), "fleet")
	p.Config = c.SpawnPrefix(intake.ConfigProps(d.Intake, p.Fleet), "config")
	if !d.DisableWatch {
		p.Watcher = c.SpawnPrefix(intake.WatcherProps(d.Intake, p.Config), "watcher")
	}
	a.pids = p
	select {
	case a.started <- p:
	default: // a restart: the tree has its PIDs already
	}
}

// PIDs are the tree's core actors (tests inject messages into them).
func (t *Tree) PIDs() PIDs { return t.pids }

// System is the actor system the tree lives in (tests send through it and
// subscribe to its event stream).
func (t *Tree) System() *actor.ActorSystem { return t.sys }

// Snapshot is the view of the fleet of the moment; it never blocks.
func (t *Tree) Snapshot() *Snapshot { return t.view.Load() }

// Done is closed once the tree has ended: by End, or by a failure.
func (t *Tree) Done() <-chan struct{} { return t.ending.done }

// Err is nil while the tree runs, then why it ended.
func (t *Tree) Err() error { return t.ending.Err() }

// Failed is Err when the tree ended by a failure (it wraps ErrFailed),
// else nil.
func (t *Tree) Failed() error { return t.ending.failed() }

// End ends the tree for err (the Supervisor's Close) unless it has ended
// already; Stop then stops its actors.
func (t *Tree) End(err error) { t.ending.end(err) }

// Stop poisons the root actor (the queued messages are handled first)
// and waits for the whole tree to stop, at most bound on the quartz
// clock. Call it once.
func (t *Tree) Stop(bound time.Duration) error {
	t.sys.Root.Poison(t.pids.Root)
	timer := t.deps.Clock.NewTimer(bound, "supervisor", "close-bound")
	defer timer.Stop("supervisor", "close-bound")
	select {
	case <-t.stopped:
		return nil
	case <-timer.C:
		return fmt.Errorf("stop actors: not stopped within %s", bound)
	}
}

// Resync re-reads every config file and retries every failed server now.
// It returns the plan and, unless dryRun, waits (bounded by ctx) for the
// outcome of every server the plan started or retried.
func (t *Tree) Resync(ctx context.Context, dryRun bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error) {
	id := fmt.Sprintf("resync-%d", t.resyncs.Add(1))
	replies := make(chan messages.Event, 2)
	// Registered before the request leaves: the config actor's answer
	// reaches the fleet actor after this.
	t.sys.Root.Send(t.pids.Fleet, &awaitResync{id: id, reply: replies})
	defer func() {
		if t.Err() == nil { // a stopped fleet actor needs no forgetting
			t.sys.Root.Send(t.pids.Fleet, &forgetResync{id: id})
		}
	}()
	t.sys.Root.Send(t.pids.Config, &messages.ResyncRequested{ID: id, DryRun: dryRun})
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
		case <-t.ending.done:
			return planned, nil, t.Err()
		}
	}
}
