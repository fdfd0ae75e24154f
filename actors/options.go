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

// Version is mcpvisor's version, reported as the MCP client name's version.
var Version = "0.1.0-dev"

// Options configure a Supervisor. Only ConfigPaths is required.
type Options struct {
	// ConfigPaths are the config files in precedence order (first wins).
	// ~ expands to Home; relative paths resolve against WorkDir.
	ConfigPaths []string
	// WorkDir resolves relative config paths; default: the process's.
	WorkDir string
	// Home expands ~; default: the user's home directory.
	Home string

	// Logger receives mcpvisor's logs, protoactor's included; default: Nop.
	Logger *zap.Logger
	// Clock drives every timer (debounce, connect and call timeouts,
	// backoff, stop grace); default: the real clock.
	Clock quartz.Clock
	// LookupEnv resolves ${VAR} in config files; default: os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Environ is the base environment of stdio servers (the entry's env is
	// added on top); default: os.Environ.
	Environ func() []string
	// InheritEnv is how much of Environ a stdio server inherits when its
	// entry has no inheritEnv of its own; nil means all of it. See
	// messages.EnvPolicy and config.InheritedEnviron.
	InheritEnv *messages.EnvPolicy
	// Secrets are more values to redact wherever an environment value
	// would be (errors, stderr tails, events, logs): the HTTP API's or the
	// gateway's token, which is in no server's environment.
	Secrets []string
	// OAuthDir is the token store of remote servers' OAuth tokens (see
	// actors/oauth); default: $XDG_STATE_HOME/mcpvisor/oauth, or
	// ~/.local/state/mcpvisor/oauth. "-" turns OAuth off.
	OAuthDir string
	// CacheDir holds the catalog cache: each server's last catalog, shown
	// while the server starts (see docs/architecture.md, "Catalog
	// cache"); default DefaultCacheDir: $XDG_CACHE_HOME/mcpvisor, or
	// ~/.cache/mcpvisor. "-" turns the cache off.
	CacheDir string
	// cacheEntryBytes and cacheTotalBytes replace catcache.MaxEntryBytes
	// and MaxTotalBytes (internal tests make them small).
	cacheEntryBytes, cacheTotalBytes int

	// Debounce is the watcher's quiet window (default 100ms); MaxWait
	// bounds one burst (default 2s).
	Debounce, MaxWait time.Duration
	// DisableWatch turns off the file watcher: only Resync re-reads.
	DisableWatch bool

	// ApprovalRequired lists the config paths that mcpvisor found by itself
	// in a project (resolved like ConfigPaths). Their entries run only as
	// the user approved them in TrustFile (`mcpvisor trust`); until then
	// they are untrusted: nothing is spawned, contacted or expanded for
	// them. Empty: every config file is trusted.
	ApprovalRequired []string
	// TrustFile is the approval store, read on every read of the config
	// files and watched like them, so an approval applies at once. Empty
	// with ApprovalRequired set: nothing is approved.
	TrustFile string
	// InputsFile is the store of VS Code input values (`mcpvisor input
	// set`), read on every read of the config and watched like the
	// config files: setting a value starts the entries that waited for
	// it. "" stores none (MCPVISOR_INPUT_<ID> still counts).
	InputsFile string
	// Workspace overrides the folder ${workspaceFolder} names (default:
	// the folder that holds .vscode/ for a .vscode/mcp.json, else the
	// config file's folder).
	Workspace string

	// ConnectTimeout and CallTimeout are the defaults for servers that do
	// not set their own (30s, 60s). StopGrace is how long a stopping server
	// gets before its process group is signalled (5s).
	ConnectTimeout, CallTimeout, StopGrace time.Duration
	// ListTimeout bounds a re-list of a server's tools after it announced
	// list_changed (30s); the first list is part of the connect.
	ListTimeout time.Duration
	// ProbeInterval is how often a ready session is pinged (30s; negative
	// disables probing); ProbeTimeout bounds one ping (10s); ProbeFailures
	// misses in a row fail the server (2).
	ProbeInterval, ProbeTimeout time.Duration
	ProbeFailures               int
	// Dial, if set, builds the transport for a server instead of the
	// built-in stdio, streamable HTTP and SSE transports; returning a nil
	// transport falls back to them. Embedders use it for custom transports,
	// tests for in-memory servers.
	Dial func(spec messages.ServerSpec) (mcp.Transport, error)
	// Autostart is when servers whose entry sets no autostart start:
	// messages.AutostartEager (the default) or AutostartLazy (idle until a
	// request needs them; see docs/config.md, "Lazy servers").
	Autostart messages.Autostart
	// MaxConnects bounds concurrent connects; queued servers are pending.
	// A connect counts only while its processes compete for CPU: one
	// whose process group has neither run nor waited to run for
	// ConnectGrace (20ms) leaves its slot to a queued server (negative:
	// every connect counts until it ends). See reconciler/fleet_connects.go.
	MaxConnects  int
	ConnectGrace time.Duration
	// MaxCallsPerServer bounds concurrent tool calls per server (64).
	MaxCallsPerServer int
	// Backoff and CrashLoop set the retry policy after failures.
	Backoff   reconciler.Backoff
	CrashLoop reconciler.CrashLoop
	// newNotifier, if set, replaces the watcher's fsnotify notifier
	// (internal tests make it fail or panic).
	newNotifier func() (watcher.Notifier, error)

	// JournalSize is how many events are kept for replay (4096), and
	// JournalBytes how many bytes of them, as JSON (8 MiB): a fleet whose
	// events carry long stderr tails keeps fewer.
	JournalSize, JournalBytes int

	// Relays: what upstream servers send back to their client. See
	// docs/architecture.md, "Two-way MCP".
	//
	// Sampling answers sampling/createMessage and Elicitation answers
	// elicitation/create; setting one advertises that capability to every
	// server. ctx derives from the call the request came during, when
	// mcpvisor can tell (CallerOf names its caller). Without Elicitation,
	// a server that asks anyway is declined. Both are called on the
	// session's goroutines, concurrently.
	//lint:ignore SA1019 sampling is deprecated on 2026-07-28 (SEP-2577), still relayed for the servers that use it
	Sampling    func(ctx context.Context, server string, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	Elicitation func(ctx context.Context, server string, params *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Roots, if set, advertises roots to every server whose config lists
	// none, and gives each of them these roots (read at connect and on
	// every Supervisor.RefreshRoots, which announces a change).
	//lint:ignore SA1019 roots are deprecated on 2026-07-28 (SEP-2577), still answered for the servers that ask
	Roots func() []*mcp.Root
	// Honourable, if set, is asked at each session's connect which of the
	// capabilities that have a handler here (Sampling, Elicitation, Roots)
	// can be honoured now: only those (non-nil in the answer) are
	// advertised to that server (roots listed in its config always are).
	// A session keeps what it advertised; on protocol 2026-07-28 each call
	// narrows it further to its caller's (WithClientCapabilities). Nil:
	// every capability with a handler is advertised.
	Honourable func() *mcp.ClientCapabilities
	// Logging gets every notifications/message of every server, in order
	// per server, on the session's notification goroutine (be quick). ctx
	// derives from the call it belongs to, on protocol 2026-07-28 when
	// mcpvisor can tell. The journal gets them too, as ServerLogged,
	// rate-limited.
	//lint:ignore SA1019 logging is deprecated on 2026-07-28 (SEP-2577), still relayed for the servers that use it
	Logging func(ctx context.Context, server string, params *mcp.LoggingMessageParams)
	// LogLevel is the first SetLogLevel: the level asked of every server
	// that supports logging (empty: none asked; servers on the go-sdk then
	// send nothing).
	LogLevel string

	// TracerProvider, if set, traces what the Supervisor sends upstream:
	// a span per request and per connect, their trace context carried to
	// the server in the request's _meta and HTTP headers (see tracing.go
	// and docs/observability.md). nil traces nothing, at no cost.
	TracerProvider trace.TracerProvider
}

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
	if o.cacheTotalBytes <= 0 {
		o.cacheTotalBytes = catcache.MaxTotalBytes
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
	if o.ProbeFailures <= 0 {
		o.ProbeFailures = 2
	}
	if o.MaxConnects <= 0 {
		o.MaxConnects = max(8, 4*runtime.NumCPU())
	}
	if o.ConnectGrace == 0 {
		o.ConnectGrace = 20 * time.Millisecond
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

// DefaultCacheDir is the catalog cache's directory when Options.CacheDir
// is empty: $XDG_CACHE_HOME/mcpvisor when XDG_CACHE_HOME is an absolute
// path, else home/.cache/mcpvisor; "-" (off) when neither is known.
func DefaultCacheDir(lookup func(string) (string, bool), home string) string {
	return catcache.DefaultDir(lookup, home)
}
