package fleet

import (
	"context"
	"sync"
	"time"

	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/catcache"
	"github.com/mcpvisor/mcpvisor/actors/internal/intake"
	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/actors/internal/view"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// Deps are what the actor tree of one Supervisor uses.
type Deps struct {
	Clock   quartz.Clock
	Logger  *zap.Logger
	Journal *journal.Journal
	// Work counts every goroutine the tree starts; Supervisor.Close waits
	// for it once the tree has stopped.
	Work *sync.WaitGroup
	// Cancel ends Sessions.Context, the parent of every lifeline: a
	// failure of the tree does, so that no server outlives it.
	Cancel context.CancelFunc
	// Redactor removes the inherited environment's values and mcpvisor's
	// own tokens from a failure's reason.
	Redactor *redact.Redactor

	// Policy is the fleet's (backoff, crash loop, connect bound, config
	// order, autostart).
	Policy reconciler.FleetOptions
	// Defaults are the timeouts of servers that set none; CallBound bounds
	// a caller's wait for an answer of the fleet actor (a subscription).
	Defaults  view.Defaults
	CallBound time.Duration

	// Sessions and Intake are what the session actors and the config and
	// watcher actors use; DisableWatch starts no watcher.
	Sessions     *session.Deps
	Intake       *intake.Deps
	DisableWatch bool

	// Cache is the catalog cache's writer (nil: the cache is off), Cached
	// what it held at start, and Secrets the values no cached catalog may
	// hold beyond each server's own: mcpvisor's tokens and the values of
	// the environment it inherited.
	Cache   *catcache.Cache
	Cached  []reconciler.CachedCatalog
	Secrets []string
}
