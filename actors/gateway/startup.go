package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/messages"
)

// DefaultStartupWait bounds how long the gateway holds its first lists
// while the fleet's first connect wave is under way.
const DefaultStartupWait = 5 * time.Second

// statusSource is a Source that also tells the fleet's status
// (*actors.Supervisor does): the gateway learns from it when the first
// connect wave has settled and which servers are still starting.
type statusSource interface {
	Status() messages.Status
}

// startup holds list requests until the fleet's first connect wave has
// settled (messages.Status.Settled), or every server still connecting
// shows its cached catalog (messages.Status.CatalogsKnown), or the
// startup wait has passed, so a client that lists right after it
// connects (the MCP Inspector's CLI, a one-shot SDK script) sees every
// server that came up in time rather than whichever were quickest, and
// sees it at once when the catalog cache knows them all.
type startup struct {
	wait  time.Duration
	clock quartz.Clock

	once    sync.Once
	settled chan struct{} // closed once lists may be answered
}

// heldMethods are the requests held until the fleet settled.
var heldMethods = map[string]bool{
	"tools/list":               true,
	"prompts/list":             true,
	"resources/list":           true,
	"resources/templates/list": true,
}

// HoldFirstLists makes the gateway answer tools/list, prompts/list,
// resources/list and resources/templates/list only once the fleet's first
// connect wave has settled or every server that is still connecting shows
// its cached catalog (Status.CatalogsKnown), or wait has passed on clock
// (nil: the real one), whichever is first; until then such requests wait (each bounded by
// its own context). It needs a Source that reports its status, as
// *actors.Supervisor does; with another Source it holds nothing. Call it
// before Run, at most once. Without it, lists are answered at once.
func (g *Gateway) HoldFirstLists(wait time.Duration, clock quartz.Clock) {
	if _, ok := g.src.(statusSource); !ok || wait <= 0 {
		return
	}
	if clock == nil {
		clock = quartz.NewReal()
	}
	g.startup = &startup{wait: wait, clock: clock, settled: make(chan struct{})}
	g.server.AddReceivingMiddleware(g.holdLists)
}

func (g *Gateway) holdLists(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if heldMethods[method] {
			select {
			case <-g.startup.settled:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return next(ctx, method, req)
	}
}

// runStartup is Run's part: it arms the startup wait and returns what Run
// calls after each event to see whether the fleet settled, and a stop
// for Run's end (which releases held requests).
func (g *Gateway) runStartup() (check func(), stop func()) {
	s := g.startup
	if s == nil {
		return func() {}, func() {}
	}
	src := g.src.(statusSource)
	timer := s.clock.AfterFunc(s.wait, func() {
		s.release(func() {
			g.log.Info("startup wait over; answering lists with the servers ready so far", zap.Duration("startupWait", s.wait))
		})
	}, "gateway", "startup-wait")
	check = func() {
		select {
		case <-s.settled:
			return
		default:
		}
		if !src.Status().CatalogsKnown() {
			return
		}
		// The fleet's view is swapped before its events are published, so
		// the catalog now is at least as new as the events that settled
		// it: load it, then answer.
		g.load()
		s.release(func() {
			g.log.Debug("first connect wave settled, or every catalog known from the cache; answering lists")
		})
	}
	stop = func() {
		timer.Stop()
		s.release(func() {})
	}
	check()
	return check, stop
}

func (s *startup) release(say func()) {
	s.once.Do(func() {
		say()
		close(s.settled)
	})
}
