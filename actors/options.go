//lint:file-ignore SA1019 sampling, roots and logging are deprecated on 2026-07-28 (SEP-2577), still relayed for the servers that use them

package actors

import (
	"context"
	"os"
	"runtime"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/catcache"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/watcher"
)

// Version is mcpvisor's version.
var Version = "0.1.0-dev"

// Options configure a Supervisor. Only ConfigPaths is required; a zero
// field means its default (docs/embedding.md, "Options").
type Options struct {
	ConfigPaths   []string // in precedence order: the first that declares a name wins
	WorkDir, Home string   // resolve relative paths and ~

	Logger     *zap.Logger
	Clock      quartz.Clock                // drives every timer
	LookupEnv  func(string) (string, bool) // resolves ${VAR} in config files
	Environ    func() []string             // stdio servers' base environment
	InheritEnv *messages.EnvPolicy         // how much of Environ a server inherits
	Secrets    []string                    // more values to redact: tokens of the API or gateway
	OAuthDir   string                      // the OAuth token store; "-": no OAuth
	CacheDir   string                      // the catalog cache (DefaultCacheDir); "-": none
	// cacheEntryBytes replaces catcache.MaxEntryBytes (an internal test
	// makes it small).
	cacheEntryBytes int

	Debounce, MaxWait time.Duration // the watcher's quiet window and burst bound
	DisableWatch      bool          // only Resync re-reads

	ApprovalRequired []string // config paths whose entries run only as TrustFile approves
	TrustFile        string   // the approval store (mcpvisor trust)
	InputsFile       string   // the VS Code input values (mcpvisor input set)
	Workspace        string   // what ${workspaceFolder} names

	// StopGrace is how long a server whose stdin closed may take to exit
	// when the fleet stops it (removed, restarted, idle) before its
	// process group gets SIGTERM, and a second later SIGKILL (default 5s).
	ConnectTimeout, CallTimeout, StopGrace, ListTimeout time.Duration
	// CloseGrace is the same for Close, which a client's stop is: half of
	// it before SIGTERM, the rest before SIGKILL, and a stop under way is
	// hurried to it. Zero: Close waits StopGrace, as the fleet's stops
	// do. mcpvisor serve sets 300ms (--stop-grace): Claude Code kills the
	// gateway 0.5s after asking it to stop.
	CloseGrace time.Duration

	ProbeInterval, ProbeTimeout time.Duration // negative interval: no probe
	ProbeFailures               int
	// RelistInterval is the least time between two re-lists of one kind
	// (tools, prompts, resources) of a session after list_changed;
	// notifications in between cost one more re-list, not one each
	// (default 1s; negative: no wait, still one re-list at a time).
	RelistInterval time.Duration
	// Dial builds a server's transport instead of the built-in ones (nil
	// transport: fall back to them): custom transports, in-memory tests.
	Dial func(spec messages.ServerSpec) (mcp.Transport, error)
	// ProcessGroups, if set, is told of the process group of every stdio
	// server mcpvisor starts: called with its id (the server's pid, which
	// leads it) once the server runs, it returns what to call once the
	// server has been reaped and its group killed. It must not block.
	// On Linux every server also gets a parent-death signal (SIGKILL) that
	// kills it if this process dies, even of SIGKILL; its descendants
	// (npx's node, sh -c's children) only die with it if something
	// outside this process kills their group: mcpvisor serve and run hand
	// the groups to a keeper process that does (docs/gateway.md).
	ProcessGroups func(pgid int) (gone func())

	Autostart         messages.Autostart // for entries that set none: eager or lazy
	MaxConnects       int                // concurrent connects (negative ConnectGrace: all count)
	ConnectGrace      time.Duration
	MaxLazyStarts     int // lazy servers starting at once (0: 4; negative: no bound); the rest wait their turn
	MaxCallsPerServer int
	Backoff           reconciler.Backoff
	CrashLoop         reconciler.CrashLoop
	// newNotifier, if set, replaces the watcher's fsnotify notifier
	// (internal tests make it fail or panic).
	newNotifier func() (watcher.Notifier, error)

	JournalSize, JournalBytes int // events kept for replay, by count and JSON bytes

	// What servers send back (docs/architecture.md, "Two-way MCP"); each
	// set handler is advertised, as Honourable allows at each connect.
	Sampling    func(ctx context.Context, server string, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	Elicitation func(ctx context.Context, server string, params *mcp.ElicitParams) (*mcp.ElicitResult, error)
	Roots       func() []*mcp.Root
	Honourable  func() *mcp.ClientCapabilities
	Logging     func(ctx context.Context, server string, params *mcp.LoggingMessageParams)
	LogLevel    string // the first SetLogLevel
	// ServerRequestBurst and ServerRequestEvery bound each server's
	// sampling and elicitation requests: a burst, then one per interval
	// (zero: 5 and 1 s; a negative burst: no bound). A request outside
	// any call is refused unless the server's allowUnsolicitedRequests.
	ServerRequestBurst int
	ServerRequestEvery time.Duration

	TracerProvider trace.TracerProvider // traces upstream requests and connects; nil: nothing
}

// DefaultMaxLazyStarts is how many lazy servers start at once unless
// Options.MaxLazyStarts says otherwise: one caller's requests could
// otherwise start every lazy server of the config together.
const DefaultMaxLazyStarts = 4

func (o Options) withDefaults() Options {
	if o.OAuthDir == "" {
		o.OAuthDir, _ = oauth.DefaultDir(os.Getenv)
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.CacheDir == "" {
		o.CacheDir = DefaultCacheDir(os.LookupEnv, o.Home)
	}
	if o.cacheEntryBytes <= 0 {
		o.cacheEntryBytes = catcache.MaxEntryBytes
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Clock == nil {
		o.Clock = quartz.NewReal()
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	if o.WorkDir == "" {
		o.WorkDir, _ = os.Getwd()
	}
	defaultDuration(&o.Debounce, 100*time.Millisecond)
	defaultDuration(&o.MaxWait, 2*time.Second)
	defaultDuration(&o.ConnectTimeout, 30*time.Second)
	defaultDuration(&o.CallTimeout, 60*time.Second)
	defaultDuration(&o.ListTimeout, 30*time.Second)
	defaultDuration(&o.StopGrace, 5*time.Second)
	if o.ProbeInterval == 0 {
		o.ProbeInterval = 30 * time.Second
	}
	defaultDuration(&o.ProbeTimeout, 10*time.Second)
	if o.RelistInterval == 0 {
		o.RelistInterval = time.Second
	}
	if o.ProbeFailures <= 0 {
		o.ProbeFailures = 2
	}
	if o.MaxConnects <= 0 {
		o.MaxConnects = max(8, 4*runtime.NumCPU())
	}
	if o.ConnectGrace == 0 {
		o.ConnectGrace = 20 * time.Millisecond
	}
	if o.MaxLazyStarts == 0 {
		o.MaxLazyStarts = DefaultMaxLazyStarts
	}
	if o.MaxCallsPerServer <= 0 {
		o.MaxCallsPerServer = 64
	}
	if o.Backoff == (reconciler.Backoff{}) {
		o.Backoff = reconciler.DefaultBackoff
	}
	if o.CrashLoop == (reconciler.CrashLoop{}) {
		o.CrashLoop = reconciler.DefaultCrashLoop
	}
	if o.JournalSize <= 0 {
		o.JournalSize = journal.DefaultEvents
	}
	if o.JournalBytes <= 0 {
		o.JournalBytes = journal.DefaultBytes
	}
	return o
}

func defaultDuration(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}

// DefaultCacheDir is the catalog cache's directory when Options.CacheDir is
// empty; "-" when none is known.
func DefaultCacheDir(lookup func(string) (string, bool), home string) string {
	return catcache.DefaultDir(lookup, home)
}

// PeekCatalogCache returns the catalogs the cache in dir holds, as the
// servers' last live sessions listed them (before the tool filters),
// sorted by server, and changes nothing; "-", a missing directory, or
// one that is not the user's alone holds none. `mcpvisor check` judges
// the cached tool names with it.
func PeekCatalogCache(dir string) []reconciler.CachedCatalog {
	if dir == "-" || dir == "" {
		return nil
	}
	return catcache.Peek(dir, catcache.MaxEntryBytes)
}
