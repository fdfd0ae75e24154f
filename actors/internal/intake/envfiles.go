package intake

import (
	"slices"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"
)

// The envFiles the entries read are watched like the config files: an
// edit of one alone (a git pull that changes only .env) is read at once,
// so that a project entry whose envFile is no longer the approved one is
// untrusted and stopped at once, and a user entry restarts with the new
// values. Which files those are is known only after a read, so the config
// actor tells the watcher actor after each read that found others
// (watchEnvFiles); the watcher actor says when it (re)started
// (watcherStarted), and is then told the current list.

// watcherStarted tells the config actor that the watcher actor started
// (or was restarted) and watches only the configured paths.
type watcherStarted struct{ watcher *actor.PID }

// watchEnvFiles tells the watcher actor which envFiles to watch besides
// the configured paths (sorted, absolute).
type watchEnvFiles struct{ paths []string }

func (a *configActor) watcherStarted(c actor.Context, m *watcherStarted) {
	a.watcher = m.watcher
	if len(a.envFiles) > 0 {
		c.Send(a.watcher, &watchEnvFiles{paths: a.envFiles})
	}
}

// watchEnvFiles has the watcher follow the envFiles a read found, when
// they changed.
func (a *configActor) watchEnvFiles(c actor.Context, found []string) {
	if slices.Equal(found, a.envFiles) {
		return
	}
	a.envFiles = found
	if a.watcher != nil {
		c.Send(a.watcher, &watchEnvFiles{paths: found})
	}
}

// syncEnvFiles watches the configured paths and m's envFiles. Sync takes
// the first look at a new path before it returns, so an edit made after
// this message was handled is reported.
func (a *watcherActor) syncEnvFiles(m *watchEnvFiles) {
	a.envFiles = m.paths
	if a.w == nil {
		return
	}
	if err := a.w.Sync(slices.Concat(a.paths, a.envFiles)); err != nil {
		a.deps.Logger.Named("watcher").Warn("envFiles not watched; their edits apply at the next read", zap.Error(err))
	}
}
