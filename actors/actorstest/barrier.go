package actorstest

import (
	"context"
	"sync"
	"testing"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/internal/testhook"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Actor names one of a Supervisor's core actors.
type Actor int

const (
	// Fleet steps the fleet: it takes *messages.DesiredState,
	// *messages.Resync and *messages.ServerFailed.
	Fleet Actor = iota
	// Config reads the config files: it takes *messages.FileChanged and
	// *messages.ResyncRequested.
	Config
	// Watcher watches the config files (nil with Options.DisableWatch).
	Watcher
)

func (a Actor) String() string { return [...]string{"fleet", "config", "watcher"}[a] }

// pid is the actor a of sup; it fails the test if sup has none.
func pid(t testing.TB, sup *actors.Supervisor, a Actor) (*actor.ActorSystem, *actor.PID) {
	t.Helper()
	tree := testhook.Tree(sup)
	pids := tree.PIDs()
	p := map[Actor]*actor.PID{Fleet: pids.Fleet, Config: pids.Config, Watcher: pids.Watcher}[a]
	if p == nil {
		t.Fatalf("the supervisor has no %s actor", a)
	}
	return tree.System(), p
}

// Send injects msg (a *messages.X the actor takes, or nil of such a
// type, to see how it copes) into actor a of sup, as another actor
// would send it.
func Send(t testing.TB, sup *actors.Supervisor, a Actor, msg any) {
	t.Helper()
	sys, p := pid(t, sup, a)
	sys.Root.Send(p, msg)
}

// barrier is a user message every actor ignores; protoactor answers it
// itself once the actor's Receive has handled it (actor.AutoRespond).
type barrier struct{}

// Passed is the barrier's answer.
type Passed struct{}

// GetAutoResponse implements actor.AutoRespond.
func (*barrier) GetAutoResponse(actor.Context) any { return &Passed{} }

// Barrier returns once actor a of sup has handled every message sent to
// it before the call: the barrier goes through the same mailbox, behind
// them. It proves that an injected message was handled, or that nothing
// else happened, without a timeout. A stopped actor never answers, and
// ctx's end fails the test.
func Barrier(ctx context.Context, t testing.TB, sup *actors.Supervisor, a Actor) {
	t.Helper()
	sys, p := pid(t, sup, a)
	// No future timeout: in the pinned protoactor, an answer that arrives
	// after its future timed out is a data race (asynkron/protoactor-go
	// #1145); ctx is the bound.
	f := sys.Root.RequestFuture(p, &barrier{}, -1)
	answered := make(chan error, 1)
	go func() {
		_, err := f.Result()
		answered <- err
	}()
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("barrier through the %s actor: %v", a, err)
		}
	case <-ctx.Done():
		t.Fatalf("barrier through the %s actor: no answer: %v", a, ctx.Err())
	}
}

// OnPublish calls f with every event sup publishes from now on, on the
// publishing goroutine at the moment the event becomes visible (the
// actor system's event stream, as any subscriber sees it): f must be
// quick. stop ends it (at the latest, the test's cleanup does).
func OnPublish(t testing.TB, sup *actors.Supervisor, f func(*messages.Envelope)) (stop func()) {
	t.Helper()
	stream := testhook.Tree(sup).System().EventStream
	sub := stream.Subscribe(func(evt any) {
		if env, ok := evt.(*messages.Envelope); ok {
			f(env)
		}
	})
	var once sync.Once
	stop = func() { once.Do(func() { stream.Unsubscribe(sub) }) }
	t.Cleanup(stop)
	return stop
}
