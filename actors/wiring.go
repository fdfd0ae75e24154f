package actors

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"go.uber.org/zap/zapcore"

	"github.com/mcpvisor/mcpvisor/actors/internal/catcache"
	"github.com/mcpvisor/mcpvisor/actors/internal/fleet"
	"github.com/mcpvisor/mcpvisor/actors/internal/intake"
	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/actors/internal/view"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// How Start puts a Supervisor together: each part of the actor tree gets
// the Deps of exactly what it uses, built here from Options once. Nothing
// is shared beyond what a Deps names.

// fleetDeps are the tree's, for the process environment inherited (whose
// values are redacted wherever they would show).
func (s *Supervisor) fleetDeps(inherited []string) *fleet.Deps {
	o := s.opts
	var ctx context.Context
	ctx, s.cancel = context.WithCancel(context.Background())
	secrets := append(inheritedSecrets(inherited), o.Secrets...)
	redactor := redact.New(secrets...)
	intakeDeps := s.intakeDeps()
	d := &fleet.Deps{
		Clock: o.Clock, Logger: o.Logger, Journal: s.journal, Work: &s.work, Cancel: s.cancel, Redactor: redactor,
		Policy: reconciler.FleetOptions{
			Backoff: o.Backoff, CrashLoop: o.CrashLoop, MaxConnects: o.MaxConnects, ConnectGrace: max(0, o.ConnectGrace),
			ConfigPaths: intakeDeps.Paths, Autostart: o.Autostart, MaxLazyStarts: o.MaxLazyStarts,
		},
		Defaults:     view.Defaults{ConnectTimeout: o.ConnectTimeout, CallTimeout: o.CallTimeout},
		CallBound:    o.CallTimeout + o.StopGrace + time.Second,
		Sessions:     s.sessionDeps(ctx, redactor, secrets),
		Intake:       intakeDeps,
		DisableWatch: o.DisableWatch,
		Secrets:      secrets,
	}
	if o.CacheDir != "-" {
		s.cache, d.Cached = catcache.Open(o.CacheDir, o.cacheEntryBytes, catcache.MaxTotalBytes, o.Logger)
		d.Cache = s.cache
		s.work.Add(1)
		go func() {
			defer s.work.Done()
			s.cache.Run()
		}()
	}
	return d
}

// sessionDeps are what every session uses; ctx is the parent of their
// lifelines, base the redactor of secrets, what is secret for every
// server.
func (s *Supervisor) sessionDeps(ctx context.Context, base *redact.Redactor, secrets []string) *session.Deps {
	o := s.opts
	return &session.Deps{
		Clock: o.Clock, Logger: o.Logger, Work: &s.work, Context: ctx,
		Relay: relay.Deps{
			Handlers:  relay.Handlers{Sampling: o.Sampling, Elicitation: o.Elicitation, Honourable: o.Honourable, Logging: o.Logging},
			Admission: relay.NewAdmission(relay.Limits{Burst: o.ServerRequestBurst, Every: o.ServerRequestEvery}, o.Clock),
			Journal:   s.journal, Logger: slogOf(o.Logger.Named("mcp")), LogLevel: s.upstreamLogLevel,
		},
		Redactor:        func(spec messages.ServerSpec) *redact.Redactor { return redactorFor(base, spec) },
		CatalogRedactor: catalogRedactors(secrets), CatalogMinSecretBytes: catcache.MinSecretBytes,
		Environ: func(spec messages.ServerSpec) ([]string, error) {
			return callEnviron(func() []string { return environFor(o, spec) })
		},
		BaseEnviron: func() ([]string, error) { return callEnviron(o.Environ) },
		Dial:        o.Dial, ProcessGroups: o.ProcessGroups, Roots: o.Roots, OAuthDir: oauthDir(o),
		Tracing: session.NewTracing(o.TracerProvider, Version), Version: Version,
		Limits: session.Limits{
			ConnectTimeout: o.ConnectTimeout, CallTimeout: o.CallTimeout, ListTimeout: o.ListTimeout, StopGrace: o.StopGrace, CloseGrace: max(0, o.CloseGrace),
			ProbeInterval: o.ProbeInterval, ProbeTimeout: o.ProbeTimeout, ProbeFailures: o.ProbeFailures, MaxCalls: o.MaxCallsPerServer,
			RelistInterval: o.RelistInterval,
		},
	}
}

// intakeDeps are what the config and watcher actors use, every path
// resolved.
func (s *Supervisor) intakeDeps() *intake.Deps {
	o := s.opts
	d := &intake.Deps{
		Clock: o.Clock, Logger: o.Logger, Journal: s.journal, Work: &s.work,
		Paths: resolve(o, o.ConfigPaths...), ReadConfig: ondisk.ReadConfigFiles,
		LookupEnv: o.LookupEnv, Home: o.Home, Workspace: o.Workspace, WorkDir: o.WorkDir,
		NewNotifier: o.newNotifier, Debounce: o.Debounce, MaxWait: o.MaxWait,
	}
	if o.InputsFile != "" {
		d.InputsFile = resolve(o, o.InputsFile)[0]
	}
	if len(o.ApprovalRequired) > 0 {
		d.NeedApproval = map[string]bool{}
		for _, p := range resolve(o, o.ApprovalRequired...) {
			d.NeedApproval[p] = true
		}
		if o.TrustFile != "" {
			d.TrustFile = resolve(o, o.TrustFile)[0]
		}
	}
	if dir := oauthDir(o); dir != "" {
		d.LoginMarker = oauth.Store{Dir: dir}.LoginMarker()
	}
	return d
}

// oauthDir is the OAuth token store, "" when OAuth is off ("-", or no
// directory known).
func oauthDir(o Options) string {
	if o.OAuthDir == "-" {
		return ""
	}
	return o.OAuthDir
}

// resolve resolves paths as config paths are: ~ to Home, relative ones
// against WorkDir.
func resolve(o Options, paths ...string) []string {
	return config.ResolvePaths(paths, o.WorkDir, o.Home)
}

// upstreamLogLevel is the level SetLogLevel asked for last ("" if none).
func (s *Supervisor) upstreamLogLevel() string {
	if p := s.logLevel.Load(); p != nil {
		return *p
	}
	return ""
}

// newActorSystem is the actor system a Supervisor lives in, its own logs
// going to logger: warnings and errors as they are, protoactor's Info
// lines (a recovered panic, a dead letter) as Debug, which `--log-level
// debug` shows and nothing else does.
func newActorSystem(logger *zap.Logger) *actor.ActorSystem {
	l := logger.Named("protoactor").WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return demoteInfo{c} }))
	return actor.NewActorSystem(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slogOf(l) }),
		actor.WithDeadLetterThrottleInterval(10*time.Millisecond),
		actor.WithDeadLetterRequestLogging(false),
	)
}

// demoteInfo logs Info entries as Debug.
type demoteInfo struct{ zapcore.Core }

func (d demoteInfo) Enabled(l zapcore.Level) bool { return d.Core.Enabled(demoted(l)) }

func (d demoteInfo) With(fields []zapcore.Field) zapcore.Core { return demoteInfo{d.Core.With(fields)} }

func (d demoteInfo) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	e.Level = demoted(e.Level)
	if d.Core.Enabled(e.Level) {
		return ce.AddCore(e, d)
	}
	return ce
}

func (d demoteInfo) Write(e zapcore.Entry, fields []zapcore.Field) error {
	e.Level = demoted(e.Level)
	return d.Core.Write(e, fields)
}

func demoted(l zapcore.Level) zapcore.Level {
	if l == zapcore.InfoLevel {
		return zapcore.DebugLevel
	}
	return l
}

// slogOf is l as an slog logger, keeping its name.
func slogOf(l *zap.Logger) *slog.Logger {
	return slog.New(zapslog.NewHandler(l.Core(), zapslog.WithName(l.Name())))
}

// newJournal is a Supervisor's journal: stamped by its clock, bounded
// as opts say, and published on its actor system's event stream.
func newJournal(sys *actor.ActorSystem, opts Options) *journal.Journal {
	return journal.New(journal.Options{
		MaxEvents: opts.JournalSize,
		MaxBytes:  opts.JournalBytes,
		Now:       func() time.Time { return opts.Clock.Now("journal", "stamp") },
		Stream:    sys.EventStream,
		Logger:    opts.Logger.Named("journal"),
	})
}

// redactorFor returns a redactor for everything secret about spec: its
// env values, headers and URL credentials, plus base's (the inherited
// environment's, mcpvisor's tokens).
func redactorFor(base *redact.Redactor, spec messages.ServerSpec) *redact.Redactor {
	own := slices.DeleteFunc(config.SecretsOf(spec), func(s string) bool { return len(s) < redact.MinSecretBytes })
	if len(own) == 0 {
		return base // shared: building a matcher per session costs tens of KiB
	}
	return base.With(own...)
}

// catalogRedactors returns the redactor of each spec's listed catalogs:
// its secrets and secrets, those of at least catcache.MinSecretBytes (the
// cache's own bound, so that what a session shows is what may be cached).
func catalogRedactors(secrets []string) func(spec messages.ServerSpec) *redact.Redactor {
	long := func(vals []string) []string {
		return slices.DeleteFunc(vals, func(v string) bool { return len(v) < catcache.MinSecretBytes })
	}
	base := redact.New(long(slices.Clone(secrets))...)
	return func(spec messages.ServerSpec) *redact.Redactor {
		own := long(config.SecretsOf(spec))
		if len(own) == 0 {
			return base
		}
		return base.With(own...)
	}
}

// environFor is the environment a stdio server for spec starts with,
// before its own env: Environ, filtered by the entry's inheritEnv or else
// the Supervisor's default.
func environFor(o Options, spec messages.ServerSpec) []string {
	policy := spec.InheritEnv
	if policy == nil {
		policy = o.InheritEnv
	}
	return config.InheritedEnviron(o.Environ(), policy)
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

// publicVariables are inherited variables whose values are not secret and
// would only make every path in an error message unreadable if redacted.
var publicVariables = map[string]bool{
	"PATH": true, "HOME": true, "PWD": true, "OLDPWD": true, "SHELL": true, "USER": true,
	"LOGNAME": true, "LANG": true, "TERM": true, "TMPDIR": true, "HOSTNAME": true,
	"SHLVL": true, "_": true, "GOPATH": true, "GOROOT": true, "GOCACHE": true, "GOMODCACHE": true,
}

// inheritedSecrets are the values of the process environment worth
// redacting (the redactor ignores values shorter than 4 bytes).
func inheritedSecrets(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && !publicVariables[k] && !strings.HasPrefix(k, "LC_") {
			out = append(out, v)
		}
	}
	return out
}
