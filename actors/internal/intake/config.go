package intake

import (
	"reflect"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// configActor reads every configured file into one desired state and sends
// it to the fleet actor. Triggers (FileChanged, ResyncRequested) are hints:
// it always re-reads every file. At most one read is in flight; triggers
// during a read cause exactly one more read. The generation increases only
// when the desired state really changed.
type configActor struct {
	deps  *Deps
	fleet *actor.PID
	trust trustSetup
	log   *zap.Logger

	reading  bool
	dirty    bool                        // a trigger arrived during the read
	queued   []*messages.ResyncRequested // answered by the next read
	inflight []*messages.ResyncRequested // answered by the read in flight
	// queuedReal and inflightReal say whether the next and the current
	// read may commit what they find. A read asked for only by dry-run
	// resyncs shows the plan for what it found and changes nothing.
	queuedReal, inflightReal bool

	lastGood   map[string]config.ParsedFile
	generation uint64
	last       *config.Loaded

	// watcher is the watcher actor, once it said it started (nil
	// without one), and envFiles the envFiles the last read found, which
	// it watches too (envfiles.go).
	watcher  *actor.PID
	envFiles []string
}

// Diagnostics carry the config actor's diagnostics of a read into the
// fleet's status.
type Diagnostics struct{ Diagnostics []messages.Diagnostic }

// configRead is the result of one read, made off the mailbox.
type configRead struct {
	config   config.Loaded
	lastGood map[string]config.ParsedFile
}

// ConfigProps are the props of the config actor, which reads deps.Paths
// and sends what it finds to fleet (a *messages.DesiredState, then
// *messages.Resync answers and *Diagnostics).
func ConfigProps(deps *Deps, fleet *actor.PID) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &configActor{deps: deps, fleet: fleet, trust: newTrustSetup(deps), log: deps.Logger.Named("config")}
	})
}

func (a *configActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		a.trigger(c, nil)
	case *messages.FileChanged:
		a.trigger(c, nil)
	case *messages.ResyncRequested:
		a.trigger(c, m)
	case *configRead:
		a.readDone(c, m)
	case *watcherStarted:
		a.watcherStarted(c, m)
	case *Recovered:
		m.raise() // the read panicked: this actor fails (its supervisor's failure policy)
	}
}

func (a *configActor) trigger(c actor.Context, resync *messages.ResyncRequested) {
	if resync != nil {
		a.queued = append(a.queued, resync)
	}
	if resync == nil || !resync.DryRun {
		a.queuedReal = true
	}
	if a.reading {
		a.dirty = true
		return
	}
	a.startRead(c)
}

func (a *configActor) startRead(c actor.Context) {
	a.reading, a.dirty = true, false
	a.inflight, a.queued = a.queued, nil
	a.inflightReal, a.queuedReal = a.queuedReal, false
	self, root := c.Self(), c.ActorSystem().Root
	paths, lastGood, trust := a.deps.Paths, a.lastGood, a.trust
	d := a.deps
	opts := config.LoadOptions{LookupEnv: d.LookupEnv, Home: d.Home, Workspace: d.Workspace, FileExists: fileExists, ReadFile: ondisk.ReadEnvFile, ProjectDir: d.WorkDir}
	inputsFile, log := d.InputsFile, a.log
	d.Work.Add(1)
	go func() {
		defer d.Work.Done()
		// Load calls the embedder's LookupEnv.
		defer recoverTo(root, self, "reading the config files")
		opts.Trust = trust.policy()
		var err error
		if opts.Inputs, err = inputsFor(inputsFile); err != nil {
			log.Warn("input store unusable: entries with inputs wait for them", zap.String("error", err.Error()))
		}
		cfg, good := config.Load(d.ReadConfig(paths), opts, lastGood)
		root.Send(self, &configRead{config: cfg, lastGood: good})
	}()
}

func (a *configActor) readDone(c actor.Context, m *configRead) {
	a.reading = false
	a.lastGood = m.lastGood
	found := m.config
	// The generation is the version of the desired state: a save that
	// only moves text (white space, comments, key order) keeps it, and
	// only refreshes the positions the fleet shows.
	changed := a.last == nil || !config.SameDesired(*a.last, found)
	moved := !changed && (!reflect.DeepEqual(a.last.Servers, found.Servers) || !reflect.DeepEqual(a.last.Invalid, found.Invalid))
	committed := changed && a.inflightReal
	refreshed := moved && a.inflightReal
	if committed {
		a.generation++
	}
	if committed || refreshed {
		a.last = &found
	}
	a.log.Debug("config read", zap.Uint64("generation", a.generation), zap.Bool("changed", changed),
		zap.Bool("committed", committed), zap.Int("servers", len(found.Servers)), zap.Int("diagnostics", len(found.Diagnostics)))
	if committed {
		warnUntrusted(a.log, found.Invalid)
	}
	diags := append([]messages.Diagnostic{}, found.Diagnostics...)
	a.deps.Journal.Publish(&messages.ConfigLoaded{Generation: a.generation, Changed: committed, Servers: len(found.Servers), Diagnostics: diags})
	if a.inflightReal {
		c.Send(a.fleet, &Diagnostics{Diagnostics: diags})
	}
	a.watchEnvFiles(c, found.EnvFiles)
	a.answer(c, committed || refreshed, &found)
	a.inflight = nil
	if a.dirty || len(a.queued) > 0 {
		a.startRead(c)
	}
}

// answer sends the fleet actor what this read means: a committed change
// (or moved positions, under the same generation) as a DesiredState, then one Resync for each resync the read answers.
// The first real resync follows the change (its answer shows the change's
// plan); a dry run previews what the read found, under the generation it
// would get, and commits nothing.
func (a *configActor) answer(c actor.Context, committed bool, found *config.Loaded) {
	if committed {
		c.Send(a.fleet, a.desiredState(a.generation, a.last))
	}
	follows := committed
	for _, r := range a.inflight {
		if r.DryRun {
			gen := a.generation
			if a.last == nil || !config.SameDesired(*a.last, *found) {
				gen++ // what it would be
			}
			c.Send(a.fleet, &messages.Resync{ID: r.ID, DryRun: true, Generation: gen, Preview: a.desiredState(gen, found)})
			continue
		}
		c.Send(a.fleet, &messages.Resync{ID: r.ID, Generation: a.generation, FollowsChange: follows})
		follows = false
	}
}

func (a *configActor) desiredState(gen uint64, cfg *config.Loaded) *messages.DesiredState {
	return &messages.DesiredState{Generation: gen, Servers: cfg.Servers, Invalid: cfg.Invalid}
}
