package actors

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/intake"
	"github.com/mcpvisor/mcpvisor/messages"
)

// The failure policy.
//
// Session actors are the reconciler's children and its business: their
// failures are server failures. The three core actors (reconciler, config,
// watcher) are the root actor's children, and the root actor is their
// supervisor strategy (HandleFailure below), so every failure of theirs is
// seen in one place:
//
//   - the watcher holds nothing but the kernel watches, so a failed watcher
//     is rebuilt: restarted (the old instance closes its watcher), and the
//     config actor re-reads every file, since edits made meanwhile were not
//     seen. More than watcherRestarts failures within watcherWindow end
//     the Supervisor instead;
//   - the reconciler and the config actor hold state nothing else has (the
//     live sessions, backoff and crash-loop records; the last good parse of
//     each file and the generation), so their failure ends the Supervisor,
//     loudly: a SupervisorFailed event, Done closed, Err set, every call
//     failing at once with Err, every server stopped.
//
// A goroutine an actor owns that runs user-supplied code (Options.LookupEnv
// in the config read) recovers a panic and sends it to its actor, which
// fails with it, so it takes the same path instead of killing the process.

const (
	watcherRestarts = 3
	watcherWindow   = time.Minute
)

// maxReasonBytes bounds a failure's reason in events and errors.
const maxReasonBytes = 1024

// ending is the one-way transition of a Supervisor from running to done,
// by Close or by a failure; the first one wins.
type ending struct {
	once sync.Once
	done chan struct{}
	err  error // set before done is closed
}

func newEnding() *ending { return &ending{done: make(chan struct{})} }

// end records err as the reason the Supervisor ended; it reports whether
// this was the first end.
func (e *ending) end(err error) (first bool) {
	e.once.Do(func() {
		e.err = err
		close(e.done)
		first = true
	})
	return first
}

// Err is nil while running, then the reason it ended.
func (e *ending) Err() error {
	select {
	case <-e.done:
		return e.err
	default:
		return nil
	}
}

// failed is Err when the end was a failure, nil otherwise.
func (e *ending) failed() error {
	if err := e.Err(); errors.Is(err, ErrFailed) {
		return err
	}
	return nil
}

// fail ends the Supervisor because the named core actor failed: publish
// SupervisorFailed, close Done, and end every session's lifeline (the
// servers get their stop grace). The root actor stops the actors. A
// failure after Close or after an earlier failure is only logged.
func (e *environment) fail(name string, reason string) {
	reason = e.redactor.Redact(truncate(reason, maxReasonBytes))
	err := fmt.Errorf("%w: the %s actor failed: %s", ErrFailed, name, reason)
	if !e.ending.end(err) {
		e.log.Error("core actor failed after the supervisor ended", zap.String("actor", name), zap.String("reason", reason))
		return
	}
	e.log.Error("supervisor failed; stopping every server", zap.String("actor", name), zap.String("reason", reason))
	e.journal.Publish(&messages.SupervisorFailed{Actor: name, Reason: reason})
	e.cancel()
}

// panicReason describes a recovered panic and the message it hit.
func panicReason(value, msg any) string {
	switch msg.(type) {
	case nil, *intake.Recovered: // a goroutine's panic names what it was doing
		return fmt.Sprintf("panic: %v", value)
	default:
		return fmt.Sprintf("panic: %v (handling %T)", value, msg)
	}
}

// HandleFailure makes the root actor the supervisor strategy of the core
// actors (protoactor calls it on the root's mailbox, the failed child's
// mailbox suspended meanwhile).
func (a *rootActor) HandleFailure(_ *actor.ActorSystem, sup actor.Supervisor, child *actor.PID, _ *actor.RestartStatistics, reason, msg any) {
	name := a.nameOf(child)
	if name == "watcher" && a.rebuildWatcher(sup, child, reason, msg) {
		return
	}
	a.env.fail(name, panicReason(reason, msg))
	sup.StopChildren(sup.Children()...)
}

// rebuildWatcher restarts a failed watcher unless it failed too often.
func (a *rootActor) rebuildWatcher(sup actor.Supervisor, child *actor.PID, reason, msg any) bool {
	if a.env.ending.Err() != nil {
		return false
	}
	now := a.env.clock.Now("supervisor", "watcher-failure")
	kept := a.watcherFailures[:0]
	for _, t := range a.watcherFailures {
		if now.Sub(t) < watcherWindow {
			kept = append(kept, t)
		}
	}
	a.watcherFailures = append(kept, now)
	if len(a.watcherFailures) > watcherRestarts {
		return false
	}
	text := a.env.redactor.Redact(truncate(panicReason(reason, msg), maxReasonBytes))
	a.env.log.Warn("file watcher failed; restarting it", zap.String("reason", text))
	a.env.journal.Publish(&messages.WatcherDegraded{Reason: "watcher restarted after a failure: " + text})
	sup.RestartChildren(child)
	// Edits made while it was down were not seen: read everything again.
	a.sys.Root.Send(a.pids.Config, &messages.FileChanged{})
	return true
}

func (a *rootActor) nameOf(child *actor.PID) string {
	switch {
	case child.Equal(a.pids.Reconciler):
		return "reconciler"
	case child.Equal(a.pids.Config):
		return "config"
	case a.pids.Watcher != nil && child.Equal(a.pids.Watcher):
		return "watcher"
	default:
		return child.Id
	}
}

// truncate cuts s to at most n bytes, on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// baseContext is what every session's lifeline derives from: cancelling
// it ends them all, whatever state the actors are in.
func baseContext() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

// callEnviron calls the embedder's Options.Environ: a panic in it is an
// error for the server being started, not a failure of its actor.
func callEnviron(environ func() []string) (env []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the environment function (Options.Environ) panicked: %v", v)
		}
	}()
	return environ(), nil
}
