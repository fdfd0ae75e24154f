package intake

import (
	"slices"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/watcher"
)

// watcherActor owns the file watcher: it starts it with the configured
// paths and turns its callbacks into FileChanged messages for the config
// actor (and WatcherDegraded events). The watcher's own goroutines end in
// Close, which the actor calls when it stops or is restarted (failure.go:
// a failed watcher actor is rebuilt).
type watcherActor struct {
	deps   *Deps
	config *actor.PID
	paths  []string
	w      *watcher.Watcher
	// envFiles are watched besides paths, as the config actor says
	// (envfiles.go).
	envFiles []string
}

// WatcherProps are the props of the watcher actor, which turns edits of
// deps.Paths into FileChanged for config. The trust store and the input
// store are watched too: an approval or an input's value applies at
// once; and so is the token store's login marker: a login connects at
// once.
func WatcherProps(deps *Deps, config *actor.PID) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &watcherActor{deps: deps, config: config, paths: watchedPaths(deps)}
	})
}

// watchedPaths are the config files and the stores whose edits must apply
// at once: the trust store (an approval), the input store (`mcpvisor
// input set` starts what waited for the value) and the token store's login
// marker (`mcpvisor auth login` touches it after storing a token, so that
// a daemon or `serve` it cannot reach over the API connects the server at
// once, by a resync).
func watchedPaths(deps *Deps) []string {
	paths := slices.Clone(deps.Paths)
	for _, p := range []string{newTrustSetup(deps).store, deps.InputsFile, deps.LoginMarker} {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}

func (a *watcherActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		a.start(c)
		c.Send(a.config, &watcherStarted{watcher: c.Self()})
	case *watchEnvFiles:
		a.syncEnvFiles(m)
	case *actor.Stopping, *actor.Restarting:
		a.stop()
	}
}

func (a *watcherActor) start(c actor.Context) {
	d := a.deps
	root, config, journal, marker := c.ActorSystem().Root, a.config, d.Journal, d.LoginMarker
	log := d.Logger.Named("watcher")
	w, err := watcher.New(a.paths, watcher.Options{
		Clock:       d.Clock,
		Logger:      d.Logger,
		Debounce:    d.Debounce,
		MaxWait:     d.MaxWait,
		NewNotifier: guardNotifiers(d.NewNotifier),
		// Callbacks only send: they run on the watcher's goroutine.
		OnChange: func(paths []string) {
			paths, login := withoutLoginMarker(marker, paths)
			if login {
				root.Send(config, &messages.ResyncRequested{ID: loginResyncID})
			}
			if len(paths) > 0 {
				root.Send(config, &messages.FileChanged{Paths: paths})
			}
		},
		// The watcher logs the degradation itself; make it an event too.
		OnDegraded: func(reason string) { journal.Publish(&messages.WatcherDegraded{Reason: reason}) },
	})
	if err != nil {
		// The system runs on without watching: resync still re-reads.
		log.Error("file watcher not started; edits need a resync", zap.Error(err))
		journal.Publish(&messages.WatcherDegraded{Reason: "watcher not started: " + err.Error()})
		return
	}
	a.w = w
}

func (a *watcherActor) stop() {
	if a.w != nil {
		_ = a.w.Close()
		a.w = nil
	}
}
