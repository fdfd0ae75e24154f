package reconciler

import (
	"maps"
	"slices"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// Fleet is the state machine of the whole fleet: every per-server record of the
// fleet (desired spec, the live sessions, attempts, backoff, crash-loop
// window, retry token, pending resyncs, exposed tools, invalid and disabled
// entries) and the rules that move them. It is pure, like etcd's raft: no
// clock, no randomness, no I/O. The shell steps it with one Input at a
// time (the clock reading and the backoff jitter ride on the input) and
// carries out the Effects it returns; reconciler/testdata/fleet/*.txt is
// its specification.
//
// The reconcile rules, per server name, given the desired spec D (or none)
// and the live session L (or none):
//
//	situation                                 action
//	D, no L                                   start (pending while every connect slot is taken)
//	L, no D (removed or disabled)             stop: the process ends, the tools are withdrawn
//	D and L, same fingerprint, L ready        keep: same session, same process, never restarted;
//	                                          live settings (tool filters, call timeout) apply at once
//	D and L, fingerprint differs, L ready     restart make-before-break: L serves until the new session
//	                                          is ready; if the new one fails, L keeps serving with a
//	                                          warning (L's retries run L's spec: the warning stays until
//	                                          a change succeeds); if L dies meanwhile, the new one decides
//	D and L, fingerprint differs, L not ready restart: stop L, start D
//	D equals L again while a change failed    keep L, the warning is cleared
//	D equals L again while the new one        stop the new one, keep L
//	connects (a change reverted)
//	D and L, same fingerprint, L failed       retry when its backoff timer fires, or at once on resync
//	                                          (a resync resets the backoff and the crash-loop budget)
//	L failed CrashLoop.Failures times         no more timers: waiting for a resync or a config change
//	within CrashLoop.Window, or restart never
//	entry invalid in config                   report invalid, start nothing (a live L keeps serving);
//	                                          siblings are unaffected
//	entry disabled                            report disabled, start nothing
//	D lazy (autostart), nothing in use        idle: start nothing; a use starts it, the idle
//	                                          timer stops it again (see fleet_lazy.go)
//	file unparsable                           (upstream: Load keeps the servers last parsed from it)
//
// Plan computes the action for each name; Fleet carries it out. At most
// MaxConnects sessions connect at once while competing for CPU (one whose
// processes sit idle past ConnectGrace stops counting: fleet_connects.go);
// the others wait in order as pending (a make-before-break candidate is
// never queued: its server is serving meanwhile). A resync completes
// (ResyncCompleted) once every server it started or retried has settled:
// ready, failed, stopped, or serving with a warning.
type Fleet struct {
	opts FleetOptions

	generation, observed uint64
	desired              Desired // the desired state applied last
	servers              map[string]*fleetServer
	invalid              map[string]messages.InvalidServer
	disabled             map[string]messages.ServerSpec
	diagnostics          []messages.Diagnostic
	lastSession          uint64

	// connecting counts sessions between spawn and their first report
	// that hold a connect slot; queue holds the servers waiting for one,
	// oldest first; inFlight are the sessions between spawn and their
	// first report, in a slot or waiting; sampling says a SampleConnects
	// is outstanding, quietSamples how many samples in a row freed
	// nothing (fleet_connects.go).
	connecting   int
	queue        []string
	inFlight     map[uint64]*fleetSession
	sampling     bool
	quietSamples uint
	// lazyStarting counts the lazy servers' sessions between spawn and
	// their first report (FleetOptions.MaxLazyStarts); the servers that
	// wait for one of those slots wait in queue too.
	lazyStarting int

	resyncs []*pendingResync
	// change is the plan of the desired state applied last, for the resync
	// that follows it.
	change *appliedChange

	// Of the step in progress: its clock reading and its effects.
	now     time.Time
	effects []Effect

	// touched names the servers whose rows changed since TakeChanged,
	// stepTouched those of the current step; dirty says that anything
	// changed.
	touched, stepTouched map[string]bool
	dirty                bool

	// claims indexes resource URIs and URI templates to the servers that
	// expose them (see reindex).
	claims map[messages.CatalogKind]*claimIndex

	// idled names the servers that went idle in this step: those whose
	// catalog nobody knows are started to list it (primeIdled).
	idled map[string]bool

	// cache is what the fleet knows of the catalog cache (fleet_cache.go);
	// nil while it is off.
	cache *catalogCache
}

// FleetOptions is the fleet's policy.
type FleetOptions struct {
	Backoff   Backoff
	CrashLoop CrashLoop
	// MaxConnects bounds concurrent connects; zero or less means no bound.
	MaxConnects int
	// ConnectGrace is how long a connect holds its slot before a sample
	// that finds its processes idle frees it (fleet_connects.go); zero
	// means every connect holds its slot until it ends.
	ConnectGrace time.Duration
	// MaxLazyStarts bounds how many lazy servers start at once, whatever
	// their processes do meanwhile (a connect slot of MaxConnects can be
	// left by an idle one); zero or less means no bound. A request could
	// otherwise start every lazy server of the config at once: one token
	// holder, many processes. The starts past it wait their turn, pending.
	MaxLazyStarts int
	// ConfigPaths are the config files in their order, which decides
	// who owns a resource URI two servers claim.
	ConfigPaths []string
	// Autostart is the policy of servers whose spec sets none; empty
	// means eager.
	Autostart messages.Autostart
}

// fleetServer is the record of one configured server with a session, or
// trying to have one.
type fleetServer struct {
	spec  messages.ServerSpec // the spec applied (what cur runs, or will)
	state messages.State
	since time.Time

	cur  *fleetSession // the session serving, or trying to
	next *fleetSession // make-before-break candidate for a changed spec

	attempt, restarts int
	everReady         bool        // a later ready session is a restart
	failures          []time.Time // inside the crash-loop window
	lastErr           string
	// changeErr is why the last changed spec failed while the previous
	// session kept serving; warning shows it while that session (or a
	// retry of its spec) serves.
	changeErr  string
	stderrTail []string
	nextRetry  time.Time
	retryArmed bool
	retryToken uint64

	tools []messages.Tool // as listed by cur, before filtering
	// catalog is the rest of what cur listed.
	catalog serverCatalog
	// announced and published are the tools and the rest of the catalog
	// that the fleet last announced for s (publishTools, publishCatalog):
	// its live catalog or its cached one, whichever its row listed then
	// (publishedCached says which for the rest). indexed is what it
	// claims in the routing index: live resources and templates only.
	announced          []messages.Tool
	published, indexed serverCatalog
	publishedCached    bool
	// announcedFrom and announcedFilter are what announced was filtered
	// from, and how.
	announcedFrom   []messages.Tool
	announcedFilter toolFilter

	lazyState // uses, idle timer, priming (fleet_lazy.go)

	// removed says s is leaving the fleet (removed or disabled): it shows
	// no cached catalog while it goes.
	removed bool
}

// warning is what status says about a change that failed while the
// previous spec serves on.
func (s *fleetServer) warning() string {
	if s.changeErr == "" || s.state != messages.StateReady {
		return ""
	}
	return redact.Bound("new config failed, still serving the previous session: " + s.changeErr)
}

type fleetSession struct {
	id   uint64
	spec messages.ServerSpec
	pid  int // the server's process, once ready
	// transport is the transport that worked, once ready; empty means
	// the spec's.
	transport  messages.Transport
	reason     string // why it was started, for its ready event
	connecting bool   // holds a connect slot
	lazySlot   bool   // holds a lazy start slot (MaxLazyStarts)
	waiting    bool   // connecting, but left its slot: its processes were idle
	spawned    time.Time
	ready      bool
	stopping   bool
}

// NewFleet returns an empty fleet with the given policy.
func NewFleet(opts FleetOptions) *Fleet {
	return &Fleet{
		opts:        opts,
		servers:     map[string]*fleetServer{},
		invalid:     map[string]messages.InvalidServer{},
		disabled:    map[string]messages.ServerSpec{},
		touched:     map[string]bool{},
		stepTouched: map[string]bool{},
		claims:      map[messages.CatalogKind]*claimIndex{},
		idled:       map[string]bool{},
		inFlight:    map[uint64]*fleetSession{},
	}
}

// Step applies one input and returns the effects, in the order the shell
// must carry them out.
func (f *Fleet) Step(in Input) []Effect {
	f.effects = nil
	switch in := in.(type) {
	case DesiredArrived:
		f.now = in.Now
		f.desiredArrived(in.Desired)
	case DiagnosticsArrived:
		f.diagnostics, f.dirty = slices.Clone(in.Diagnostics), true
	case ResyncArrived:
		f.now = in.Now
		f.resyncArrived(in.Resync)
	case SessionReady:
		f.now = in.Now
		f.sessionReady(in)
	case SessionTools:
		f.now = in.Now
		f.sessionTools(in)
	case SessionPrompts:
		f.sessionPrompts(in)
	case SessionResources:
		f.sessionResources(in)
	case SessionFailed:
		f.now = in.Now
		f.sessionFailed(in.Failure, in.Jitter)
	case SessionStopped:
		f.now = in.Now
		f.sessionStopped(in)
	case RetryDue:
		f.now = in.Now
		f.retryDue(in)
	case ServerWanted:
		f.now = in.Now
		f.serverWanted(in)
	case ServerReleased:
		f.now = in.Now
		f.serverReleased(in)
	case CacheLoaded:
		f.cacheLoaded(in)
	case IdleDue:
		f.now = in.Now
		f.idleDue(in)
	case ConnectsSampled:
		f.now = in.Now
		f.connectsSampled(in)
	}
	f.settle()
	if f.primeIdled() {
		f.settle()
	}
	f.announceTouched()
	out := f.effects
	f.effects = nil
	return out
}

// settle ends a step: queued servers take the free connect slots, a
// sample is asked for while any wait, and resyncs whose servers all
// settled complete.
func (f *Fleet) settle() {
	f.startQueued()
	f.requestSample()
	f.checkResyncs()
}

// Generation is the newest desired state the fleet has seen;
// ObservedGeneration the newest one whose plan it applied.
func (f *Fleet) Generation() uint64         { return f.generation }
func (f *Fleet) ObservedGeneration() uint64 { return f.observed }

// Diagnostics are the config actor's newest diagnostics.
func (f *Fleet) Diagnostics() []messages.Diagnostic { return f.diagnostics }

// TakeChanged returns the names whose rows changed since the last call,
// sorted, and whether anything (rows, generations, diagnostics) changed.
func (f *Fleet) TakeChanged() (names []string, changed bool) {
	for name := range f.touched {
		names = append(names, name)
	}
	slices.Sort(names)
	changed = f.dirty || len(names) > 0
	clear(f.touched)
	f.dirty = false
	return names, changed
}

func (f *Fleet) effect(e Effect) { f.effects = append(f.effects, e) }

// announceTouched ends a step by holding every server it touched to the
// rule that its catalog events tell what its row lists: whatever the step
// changed (a state alone can show or hide a cached catalog, or a lazy
// server's last one), the difference from what was last announced is
// published. Where the step published already, there is none.
func (f *Fleet) announceTouched() {
	for _, name := range slices.Sorted(maps.Keys(f.stepTouched)) {
		if s := f.servers[name]; s != nil {
			f.publishTools(s)
			f.publishCatalog(s)
		}
	}
	clear(f.stepTouched)
}

// emit queues an event; a server event also marks that server's row.
func (f *Fleet) emit(ev messages.Event) {
	f.effect(Publish{Event: ev})
	f.dirty = true
	switch ev := ev.(type) {
	case *messages.ServerStateChanged:
		f.touch(ev.Server)
	case *messages.ToolsChanged:
		f.touch(ev.Server)
	case *messages.PromptsChanged:
		f.touch(ev.Server)
	case *messages.ResourcesChanged:
		f.touch(ev.Server)
	case *messages.ResourceTemplatesChanged:
		f.touch(ev.Server)
	}
}

func (f *Fleet) touch(name string) {
	f.touched[name] = true
	f.stepTouched[name] = true
	f.dirty = true
}
