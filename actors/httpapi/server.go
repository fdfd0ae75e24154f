package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/httpguard"
	"github.com/mcpvisor/mcpvisor/actors/journal"
)

// Options configure a Server. Only Fleet is required.
type Options struct {
	Fleet Fleet
	// Token is required as "Authorization: Bearer TOKEN" on every route
	// but /healthz, and must be at least MinTokenBytes long (New refuses a
	// shorter one). Without a token the API serves nobody, unless NoAuth.
	// Wrong tokens are throttled: after a burst of 10, one guess a second
	// for the whole server, the others answered 429 with Retry-After.
	// Under Serve, requests of the server's own user (its Unix socket,
	// loopback TCP from its uid) are not throttled, so another local user
	// cannot lock it out; mounted through Handler in your own
	// http.Server, which user a request comes from is not known and every
	// request is throttled.
	Token string
	// NoAuth serves every route without a token, to requests for a
	// loopback Host only: for an embedder that mounts Handler behind its
	// own authentication.
	NoAuth bool
	// AllowOrigins are browser origins ("scheme://host[:port]") whose
	// pages may use the API; any other Origin, or Sec-Fetch-Site of
	// another site, is refused with 403. Requests without them (curl, the
	// CLI) pass.
	AllowOrigins []string
	// Logger receives request logs (debug) and server errors; default Nop.
	Logger *zap.Logger
	// Clock drives heartbeats, the resync wait and call timing; default:
	// the real clock.
	Clock quartz.Clock
	// Metrics to record into and serve on /metrics; default NewMetrics(Fleet).
	Metrics *Metrics
	// Heartbeat is how often an idle event stream gets a comment line
	// (default 15s), so proxies and clients can tell it is alive.
	Heartbeat time.Duration
	// ResyncWait bounds how long POST /api/v1/resync waits for the servers
	// it started to settle (default 30s).
	ResyncWait time.Duration
	// MaxBodyBytes bounds request bodies (default 1 MiB).
	MaxBodyBytes int64
	// BodyTimeout bounds how long a request body may take to arrive
	// (default 30s), on Clock.
	BodyTimeout time.Duration
	// ShutdownGrace bounds how long Serve waits for requests to finish once
	// its context ends (default 5s); request contexts are cancelled first.
	ShutdownGrace time.Duration
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Clock == nil {
		o.Clock = quartz.NewReal()
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics(o.Fleet)
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.ResyncWait <= 0 {
		o.ResyncWait = 30 * time.Second
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = httpguard.DefaultBodyTimeout
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = 5 * time.Second
	}
	return o
}

// Server is the HTTP API over one Fleet.
type Server struct {
	opts    Options
	fleet   Fleet
	log     *zap.Logger
	clock   quartz.Clock
	metrics *Metrics
	handler http.Handler
}

// New builds the API. Serve it with Serve, or mount Handler yourself. It
// fails on a malformed AllowOrigins entry or a Token shorter than
// httpguard's 32 bytes.
func New(opts Options) (*Server, error) {
	opts = opts.withDefaults()
	origins, err := httpguard.NewOrigins(opts.AllowOrigins)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, fleet: opts.Fleet, log: opts.Logger.Named("httpapi"), clock: opts.Clock, metrics: opts.Metrics}
	if err := httpguard.CheckToken(opts.Token); err != nil {
		return nil, fmt.Errorf("httpapi: %w", err)
	}
	token := httpguard.NewToken(opts.Token)
	s.handler = s.routes(guard{origins: origins, token: token, bearer: httpguard.NewThrottle(token, opts.Clock), noAuth: opts.NoAuth})
	return s, nil
}

// Handler is the whole API, authentication included. Mounted on its own
// (without Serve), every request's wrong token is throttled, the owner's
// too (see Options.Token), and nothing feeds events to the metrics: call
// Metrics().ObserveEvent from a Supervisor.Follow feed if the reconcile
// histogram matters.
func (s *Server) Handler() http.Handler { return s.handler }

// Metrics is the server's metrics, to share its CallObserver.
func (s *Server) Metrics() *Metrics { return s.metrics }

// Serve answers requests on l (and on more: `mcpvisor run` serves a TCP
// address and a Unix socket) until ctx ends, then cancels every request
// context (event streams and in-flight calls end at once), shuts down
// within ShutdownGrace and returns nil. Its own user's connections are
// not throttled (see Options.Token). It closes every listener. While
// serving it feeds every event to the metrics.
func (s *Server) Serve(ctx context.Context, l net.Listener, more ...net.Listener) error {
	reqCtx, cancelRequests := context.WithCancel(ctx)
	defer cancelRequests()
	hs := &http.Server{
		Handler:           s.handler,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
		ConnContext:       httpguard.OwnerConnContext, // the owner's requests are not throttled
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          zap.NewStdLog(s.log.WithOptions(zap.IncreaseLevel(zap.WarnLevel))),
	}
	stopMetrics := s.feedMetrics()
	defer stopMetrics()

	listeners := append([]net.Listener{l}, more...)
	served := make(chan error, len(listeners))
	for _, ln := range listeners {
		go func() { served <- hs.Serve(ln) }()
	}
	select {
	case err := <-served:
		_ = hs.Close() // the other listeners' Serve return too
		for range len(listeners) - 1 {
			<-served
		}
		return fmt.Errorf("serve HTTP API: %w", err)
	case <-ctx.Done():
	}
	cancelRequests()
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownGrace)
	defer cancel()
	err := hs.Shutdown(shutdownCtx)
	for range listeners {
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
	}
	if err != nil {
		_ = hs.Close()
		return fmt.Errorf("shut down HTTP API: %w", err)
	}
	return nil
}

// feedMetrics follows the fleet's events into the metrics until the
// returned stop is called; stop waits for the goroutine.
func (s *Server) feedMetrics() (stop func()) {
	feed := s.fleet.Follow(journal.Live, 1024)
	var wg sync.WaitGroup
	wg.Go(func() {
		for env := range feed.C {
			if env.Seq != 0 { // not a feed's notice
				s.metrics.ObserveEvent(env)
			}
		}
	})
	return func() {
		feed.Finish() // every event published so far is observed
		wg.Wait()
		feed.Close()
	}
}
