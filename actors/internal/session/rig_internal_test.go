package session

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// rig runs session actors as children of a parent actor of its own, the
// part the fleet actor plays, which hands each report to the test.
type rig struct {
	t       testing.TB
	sys     *actor.ActorSystem
	deps    *Deps
	clock   *quartz.Mock // deps.Clock
	work    sync.WaitGroup
	cancel  context.CancelFunc
	parent  *actor.PID
	reports chan any
	spawned chan *Handle
}

// newRig builds the deps of a session over dial (the test's in-memory
// servers), on a mock clock that fires nothing the test does not.
func newRig(t testing.TB, dial func(messages.ServerSpec) (mcp.Transport, error)) *rig {
	t.Helper()
	r := &rig{t: t, reports: make(chan any, 64), spawned: make(chan *Handle, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	r.clock = clock
	r.deps = &Deps{
		Clock: clock, Logger: zap.NewNop(), Work: &r.work, Context: ctx,
		Relay:       relay.Deps{Journal: journal.New(journal.Options{}), Logger: slog.New(slog.DiscardHandler), LogLevel: func() string { return "" }},
		Redactor:    func(messages.ServerSpec) *redact.Redactor { return redact.New() },
		Environ:     func(messages.ServerSpec) ([]string, error) { return nil, nil },
		BaseEnviron: func() ([]string, error) { return nil, nil },
		Dial:        dial, Version: "test",
		Limits: Limits{ConnectTimeout: time.Minute, CallTimeout: time.Minute, ListTimeout: time.Minute, StopGrace: time.Second,
			ProbeInterval: -1, MaxCalls: 8},
	}
	r.sys = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }),
		actor.WithDeadLetterThrottleInterval(10*time.Millisecond))
	t.Cleanup(r.close)
	return r
}

// spawn starts session id of spec under the rig's parent.
func (r *rig) spawn(spec messages.ServerSpec, id uint64) *Handle {
	r.parent = r.sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *actor.Started:
			r.spawned <- Spawn(c, r.deps, spec, id)
		case *Ready, *Relisted, *Stopped, *ResourceUpdated, *Spawned, *messages.ServerFailed:
			r.reports <- m
		}
	}, actor.WithSupervisor(actor.NewOneForOneStrategy(0, 0, func(any) actor.Directive { return actor.StopDirective }))))
	return <-r.spawned
}

// report waits for the next report of type T, skipping others.
func report[T any](ctx context.Context, r *rig) T {
	r.t.Helper()
	for {
		select {
		case m := <-r.reports:
			if v, ok := m.(T); ok {
				return v
			}
		case <-ctx.Done():
			var zero T
			r.t.Fatalf("no %T report: %v", zero, ctx.Err())
			return zero
		}
	}
}

func (r *rig) close() {
	_ = r.sys.Root.PoisonFuture(r.parent).Wait()
	r.cancel()
	r.work.Wait()
	r.sys.Shutdown()
}

// pipeServer dials an in-memory go-sdk server over a pipe, handing the
// server's end of the pipe to the test (closing it drops the connection
// as a dying process would).
func pipeServer(ends chan<- net.Conn) func(messages.ServerSpec) (mcp.Transport, error) {
	return func(messages.ServerSpec) (mcp.Transport, error) {
		server, client := net.Pipe()
		srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		if _, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: server, Writer: server}, nil); err != nil {
			return nil, err
		}
		ends <- server
		return &mcp.IOTransport{Reader: client, Writer: client}, nil
	}
}
