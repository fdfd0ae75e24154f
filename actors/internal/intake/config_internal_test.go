package intake

import (
	"sync"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testctx"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// TestConfigActor_OneReadInFlight: triggers that arrive during a read cause
// exactly one more read, and a resync is answered by a read that started
// after it arrived.
func TestConfigActor_OneReadInFlight(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	sys := newActorSystem()
	reads := make(chan chan struct{}) // each read hands over its release channel
	var work sync.WaitGroup
	defer work.Wait() // deferred first, so it runs after the actors stopped
	deps := &Deps{
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    zap.NewNop(),
		Journal:   journal.New(journal.Options{MaxEvents: 16}),
		Work:      &work,
		Paths:     []string{"/nonexistent/.mcp.json"},
		ReadConfig: func([]string) []config.FileContent {
			release := make(chan struct{})
			reads <- release
			<-release
			return nil
		},
	}
	resyncs := make(chan *messages.Resync, 16)
	sink := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if r, ok := c.Message().(*messages.Resync); ok {
			resyncs <- r
		}
	}))
	cfg := sys.Root.Spawn(ConfigProps(deps, sink))
	defer func() {
		_ = sys.Root.StopFuture(cfg).Wait()
		_ = sys.Root.StopFuture(sink).Wait()
	}()

	next := func(what string) chan struct{} {
		select {
		case r := <-reads:
			return r
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
			return nil
		}
	}
	first := next("the initial read")
	for range 5 {
		sys.Root.Send(cfg, &messages.FileChanged{})
	}
	close(first)
	second := next("the one read the burst causes")
	resync := &messages.ResyncRequested{ID: "barrier"}
	sys.Root.Send(cfg, resync) // arrives during the second read
	close(second)
	third := next("the read answering the resync")
	close(third)
	for {
		select {
		case r := <-resyncs:
			if r.ID != resync.ID {
				t.Fatalf("resync answered by an unexpected read: %+v", r)
			}
			// Three reads in all: a fourth would block in reads.
			select {
			case <-reads:
				t.Fatal("a fourth read started")
			default:
			}
			return
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
}
