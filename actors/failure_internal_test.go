package actors

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/test/testctx"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/watcher"
)

// startWatching starts a supervisor on one config file with the watcher
// on (real clock, short debounce) and newNotifier as its notifier source;
// it returns the supervisor, its feed from the first event and the path.
func startWatching(t *testing.T, newNotifier func() (watcher.Notifier, error)) (*Supervisor, *journal.Feed, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	sup, err := Start(Options{
		ConfigPaths: []string{path}, Logger: zaptest.NewLogger(t), Environ: func() []string { return nil },
		Debounce: time.Millisecond, MaxWait: 10 * time.Millisecond, newNotifier: newNotifier,
	})
	if err != nil {
		t.Fatal(err)
	}
	feed := sup.Follow(0, 64)
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		feed.Close()
	})
	return sup, feed, path
}

// barrierMsg is answered by protoactor itself once the actor's Receive
// has handled it, that is after every message queued before it (the
// actorstest barrier, which this package's own tests cannot import).
type barrierMsg struct{}

func (*barrierMsg) GetAutoResponse(actor.Context) any { return &barrierMsg{} }

// barrier waits until pid has handled every message sent to it so far.
func barrier(ctx context.Context, t *testing.T, sup *Supervisor, pid *actor.PID) {
	t.Helper()
	f := sup.tree.System().Root.RequestFuture(pid, &barrierMsg{}, -1)
	done := make(chan error, 1)
	go func() { _, err := f.Result(); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("barrier: %v", err)
		}
	case <-ctx.Done():
		t.Fatalf("barrier: %v", ctx.Err())
	}
}

// waitEvent returns the next event from feed that match accepts.
func waitEvent(ctx context.Context, t *testing.T, feed *journal.Feed, what string, match func(messages.Event) bool) messages.Event {
	t.Helper()
	for {
		select {
		case env, ok := <-feed.C:
			if !ok {
				t.Fatalf("waiting for %s: feed ended", what)
			}
			if match(env.Event) {
				return env.Event
			}
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

func degradedWith(text string) func(messages.Event) bool {
	return func(e messages.Event) bool {
		d, ok := e.(*messages.WatcherDegraded)
		return ok && strings.Contains(d.Reason, text)
	}
}

// A failed watcher actor is rebuilt, not fatal: the notifier source
// panics once (on the actor's goroutine, in Started), the actor is
// restarted with a WatcherDegraded saying so, and the rebuilt watcher
// sees the next edit.
func TestWatcherActor_FailureIsRebuilt(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	var calls atomic.Int32
	sup, feed, path := startWatching(t, func() (watcher.Notifier, error) {
		if calls.Add(1) == 1 {
			panic("inotify shim exploded")
		}
		return watcher.NewFSNotifier()
	})
	// The config actor reads twice (at start, and again for the restart:
	// edits meanwhile were missed); the rebuilt watcher has taken its
	// first look once it handled the barrier.
	reads, restarted := 0, false
	for reads < 2 || !restarted {
		switch e := waitEvent(ctx, t, feed, "the restart and two reads", func(messages.Event) bool { return true }).(type) {
		case *messages.ConfigLoaded:
			reads++
		case *messages.WatcherDegraded:
			if !strings.Contains(e.Reason, "watcher restarted after a failure: panic: inotify shim exploded") {
				t.Fatalf("degraded: %q, want the restart and its reason", e.Reason)
			}
			restarted = true
		}
	}
	barrier(ctx, t, sup, sup.tree.PIDs().Watcher)
	// Only the rebuilt watcher can report this edit; the file holds a
	// server now, so its read changes the desired state.
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "/nonexistent/a"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	waitEvent(ctx, t, feed, "the edit", func(e messages.Event) bool {
		c, ok := e.(*messages.ConfigLoaded)
		return ok && c.Servers == 1
	})
	if err := sup.Err(); err != nil {
		t.Fatalf("Err = %v: a rebuilt watcher must not end the Supervisor", err)
	}
}

// A watcher that fails on every start is rebuilt watcherRestarts times,
// then it ends the Supervisor.
func TestWatcherActor_FailingOverAndOverEndsTheSupervisor(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	sup, feed, _ := startWatching(t, func() (watcher.Notifier, error) { panic("always") })
	ev := waitEvent(ctx, t, feed, "the failure", func(e messages.Event) bool { _, ok := e.(*messages.SupervisorFailed); return ok })
	if f := ev.(*messages.SupervisorFailed); f.Actor != "watcher" || !strings.Contains(f.Reason, "always") {
		t.Fatalf("event %+v, want the watcher's panic", f)
	}
	select {
	case <-sup.Done():
	case <-ctx.Done():
		t.Fatal("Done not closed")
	}
	if !errors.Is(sup.Err(), ErrFailed) {
		t.Fatalf("Err = %v", sup.Err())
	}
}

// panickyNotifier panics in Add, which the watcher also calls on its own
// goroutine, where a panic would end the process.
type panickyNotifier struct {
	events chan fsnotify.Event
	errors chan error
}

func (n *panickyNotifier) Add(string) error              { panic("Add exploded") }
func (n *panickyNotifier) Remove(string) error           { return nil }
func (n *panickyNotifier) Events() <-chan fsnotify.Event { return n.events }
func (n *panickyNotifier) Errors() <-chan error          { return n.errors }
func (n *panickyNotifier) Close() error {
	close(n.events)
	close(n.errors)
	return nil
}

// A notifier that panics is an error to the watcher, which falls back to
// polling and says why: reported, never a crash, never fatal.
func TestWatcherActor_PanickingNotifierDegrades(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	sup, feed, _ := startWatching(t, func() (watcher.Notifier, error) {
		return &panickyNotifier{events: make(chan fsnotify.Event), errors: make(chan error)}, nil
	})
	waitEvent(ctx, t, feed, "the fallback", degradedWith("file notifier Add panicked: Add exploded"))
	if err := sup.Err(); err != nil {
		t.Fatalf("Err = %v, want the Supervisor running", err)
	}
}
