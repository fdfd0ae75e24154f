package intake

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/test/testctx"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/watcher"
)

// When file-system notifications cannot be used, the watcher actor says
// so as a WatcherDegraded event, and edits still reach the config actor
// (by polling).
func TestWatcherActor_DegradedIsAnEventAndEditsStillArrive(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	sys := newActorSystem()
	degraded := make(chan *messages.WatcherDegraded, 4)
	sub := sys.EventStream.Subscribe(func(evt any) {
		if env, ok := evt.(*messages.Envelope); ok {
			if d, ok := env.Event.(*messages.WatcherDegraded); ok {
				degraded <- d
			}
		}
	})
	defer sys.EventStream.Unsubscribe(sub)
	changed := make(chan *messages.FileChanged, 16)
	sink := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if m, ok := c.Message().(*messages.FileChanged); ok {
			changed <- m
		}
	}))
	path := filepath.Join(t.TempDir(), ".mcp.json")
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	poll := clock.Trap().NewTicker("watcher", "poll")
	defer poll.Close()
	deps := &Deps{
		Debounce: time.Millisecond, MaxWait: time.Second,
		Clock:       clock,
		Logger:      zap.NewNop(),
		Journal:     journal.New(journal.Options{MaxEvents: 16, Stream: sys.EventStream}),
		NewNotifier: func() (watcher.Notifier, error) { return nil, syscall.EMFILE },
		Paths:       []string{path},
	}
	pid := sys.Root.Spawn(WatcherProps(deps, sink))
	defer func() {
		_ = sys.Root.StopFuture(pid).Wait()
		_ = sys.Root.StopFuture(sink).Wait()
	}()

	// Degrading arms the poll ticker, then reports the reason.
	poll.MustWait(ctx).MustRelease(ctx)
	select {
	case d := <-degraded:
		if !strings.Contains(d.Reason, "too many open files") {
			t.Fatalf("reason = %q, want the cause named", d.Reason)
		}
	case <-ctx.Done():
		t.Fatal("no WatcherDegraded event")
	}
	if err := os.WriteFile(path, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The next poll tick sees the edit (polling needs no debounce).
	if d, w := clock.AdvanceNext(); d != 2*time.Second {
		t.Fatalf("next timer in %s, want the 2s poll", d)
	} else {
		w.MustWait(ctx)
	}
	select {
	case m := <-changed:
		if len(m.Paths) != 1 || m.Paths[0] != path {
			t.Fatalf("FileChanged%v, want %s", m.Paths, path)
		}
	case <-ctx.Done():
		t.Fatal("the edit never reached the config actor")
	}
}
