package fleet

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/intake"
	"github.com/mcpvisor/mcpvisor/messages"
)

// The failure policy.
//
// Session actors are the fleet actor's children and its business: their
// failures are server failures. The three core actors (fleet, config,
// watcher) are the root actor's children, and the root actor is their
// supervisor strategy (HandleFailure below), so every failure of theirs is
// seen in one place:
//
//   - the watcher holds nothing but the kernel watches, so a failed watcher
//     is rebuilt: restarted (the old instance closes its watcher), and the
//     config actor re-reads every file, since edits made meanwhile were not
//     seen. More than watcherRestarts failures within watcherWindow end
//     the Supervisor instead;
//   - the fleet actor and the config actor hold state nothing else has (the
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

// fail ends the Supervisor because the named core actor failed: publish
// SupervisorFailed, close Done, and end every session's lifeline (the
// servers get their stop grace). The root actor stops the actors. A
// failure after Close or after an earlier failure is only logged.
func (t *Tree) fail(name string, reason string) {
	d := t.deps
	reason = d.Redactor.Redact(truncate(reason, maxReasonBytes))
	err := fmt.Errorf("%w: the %s actor failed: %s", ErrFailed, name, reason)
	if !t.ending.end(err) {
		d.Logger.Error("core actor failed after the supervisor ended", zap.String("actor", name), zap.String("reason", reason))
		return
	}
	d.Logger.Error("supervisor failed; stopping every server", zap.String("actor", name), zap.String("reason", reason))
	d.Journal.Publish(&messages.SupervisorFailed{Actor: name, Reason: reason})
	d.Cancel()
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
	a.tree.fail(name, panicReason(reason, msg))
	sup.StopChildren(sup.Children()...)
}

// rebuildWatcher restarts a failed watcher unless it failed too often.
func (a *rootActor) rebuildWatcher(sup actor.Supervisor, child *actor.PID, reason, msg any) bool {
	d := a.tree.deps
	if a.tree.ending.Err() != nil {
		return false
	}
	now := d.Clock.Now("supervisor", "watcher-failure")
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
	text := d.Redactor.Redact(truncate(panicReason(reason, msg), maxReasonBytes))
	d.Logger.Warn("file watcher failed; restarting it", zap.String("reason", text))
	d.Journal.Publish(&messages.WatcherDegraded{Reason: "watcher restarted after a failure: " + text})
	sup.RestartChildren(child)
	// Edits made while it was down were not seen: read everything again.
	a.tree.sys.Root.Send(a.pids.Config, &messages.FileChanged{})
	return true
}

func (a *rootActor) nameOf(child *actor.PID) string {
	switch {
	case child.Equal(a.pids.Fleet):
		return "fleet"
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
