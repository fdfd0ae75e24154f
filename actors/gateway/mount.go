package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/coder/quartz"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/journal"
)

// MountOptions configure Mount; the zero value is usable.
type MountOptions struct {
	// Logger gets the gateway's logs; default: none.
	Logger *zap.Logger
	// Names is how tools and prompts are named; default NamesPrefixed.
	Names Names
	// MaxNameLength bounds exposed tool and prompt names, a client's
	// wrapping included (WithMaxNameLength); 0: DefaultMaxNameLength;
	// negative: no bound.
	MaxNameLength int
	// StartupWait holds the first lists until every server started or
	// failed, or this long (HoldFirstLists; `serve` waits
	// DefaultStartupWait); 0 answers them at once. Clock times it (nil:
	// the real clock).
	StartupWait time.Duration
	Clock       quartz.Clock
	// Relay, the one installed in the Supervisor's Options before Start
	// (Relay.Install), is bound to the gateway: the servers' sampling and
	// elicitation requests and log messages go to its clients. Nil: the
	// Supervisor's own handlers, if any, answer them.
	Relay *Relay
	// TracerProvider traces the gateway's requests (WithTracerProvider).
	TracerProvider trace.TracerProvider
}

// mount is what Mount adds to a gateway: the feed it follows, and how to
// stop following it.
type mount struct {
	stop     context.CancelFunc
	followed chan struct{}
	feed     *journal.Feed
	once     sync.Once
}

// Mount puts a gateway on sup, in one call: it follows sup's events from
// this moment (Run, on a goroutine of its own), so its catalog is the
// fleet's and every change reaches its clients as list_changed; its
// first lists wait as opts say; opts.Relay is bound to it; and it ranks
// two servers' claims on one name by sup's config order. ServeStdio and
// ServeListener serve it, and end by themselves once sup ends (Close, or
// a failure); Handler serves it in the embedder's own HTTP server, which
// the embedder stops. Close the gateway before the Supervisor.
func Mount(sup *actors.Supervisor, opts MountOptions) *Gateway {
	// Followed before the gateway loads the catalog: every change after
	// the load is in the feed.
	feed := sup.Follow(journal.Live, 4096)
	var options []Option
	if opts.Names != "" {
		options = append(options, WithNames(opts.Names))
	}
	if opts.MaxNameLength != 0 {
		options = append(options, WithMaxNameLength(opts.MaxNameLength))
	}
	if opts.TracerProvider != nil {
		options = append(options, WithTracerProvider(opts.TracerProvider))
	}
	g := New(sup, opts.Logger, options...)
	if opts.Relay != nil {
		opts.Relay.Bind(g)
	}
	g.HoldFirstLists(opts.StartupWait, opts.Clock)
	ctx, stop := context.WithCancel(context.Background())
	g.ended = sup.Done()
	g.mount = &mount{stop: stop, followed: make(chan struct{}), feed: feed}
	go func() {
		defer close(g.mount.followed)
		g.Run(ctx, feed.C)
	}()
	return g
}

// Close stops a mounted gateway following its fleet and waits for it.
// Serve calls still running end with their own context (or the
// Supervisor's end). It is idempotent, and does nothing for a gateway
// that Mount did not make.
func (g *Gateway) Close() {
	if g.mount == nil {
		return
	}
	g.mount.once.Do(func() {
		g.mount.stop()
		<-g.mount.followed
		g.mount.feed.Close()
	})
}

// untilEnded is ctx, also ended once the Supervisor a mounted gateway
// follows has ended; stop releases it.
func (g *Gateway) untilEnded(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if g.ended != nil {
		go func() {
			select {
			case <-g.ended:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return ctx, cancel
}
