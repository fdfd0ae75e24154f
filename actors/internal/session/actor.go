package session

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/actors/internal/transport"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
)

// sessionActor owns one live MCP client session: the process or HTTP
// connection, its tool list and its in-flight calls.
//
// One goroutine, the lifeline, owns the connection for its whole life: it
// dials, reports the result, waits for the session to die or for the actor
// to ask it to stop, closes the session (grace period, then the process
// group is signalled) and reports that it is done. The actor only reads
// its reports and cancels its context. A request (tool call, prompt get,
// resource read, completion) runs on its caller's goroutine, with the lane
// the actor publishes while the session is connected (lane.go). The
// actor's own goroutines are counted in Deps.Work, which Supervisor.Close
// waits for.
type sessionActor struct {
	deps *Deps
	spec messages.ServerSpec
	id   uint64
	log  *zap.Logger
	// handle is what rows hold of this actor: its gone channel, and the
	// lane requests take while the session is connected (lane.go).
	handle *Handle
	// redactor knows this server's secrets, and learns the tokens the
	// session obtains; its catalog redactor removes the secrets a listed
	// catalog may not show (Deps.CatalogRedactor, and the long learned
	// ones).
	redactor *sessionRedactor
	// oauth authorizes a remote session's requests; nil for stdio servers
	// and for servers with an Authorization header of their own.
	oauth *oauth.Handler

	ctx    context.Context // cancelled when the session must stop
	cancel context.CancelFunc
	cs     *mcp.ClientSession // set once connected
	calls  chan struct{}      // bounds concurrent calls
	conn   *transport.Conn    // for the stderr tail; owned by the lifeline
	// relists follow list_changed, one per kind (kindSlot): one re-list
	// in flight at most, paced by RelistInterval (relist.go).
	relists [3]relister

	probeTimer  *quartz.Timer
	probeN      uint64 // generation of the probe schedule
	probeMisses int
	// subs are the resource subscriptions this session holds upstream.
	subs map[string]*upstreamSub
	// failed is set once this session reported ServerFailed, so its
	// lifeline's end is not reported twice.
	failed bool
	// ended: the lifeline is done, the connection gone; finished: the
	// fleet actor was told and the actor is stopping.
	ended, finished bool
	// hurry is closed when the actor stops: the Supervisor is closing
	// (or the actor failed), so a stop under way takes Close's schedule
	// (stop.go). Read by the lifeline.
	hurry chan struct{}

	// relay carries progress, log messages and requests from the server
	// back to their callers (package relay); client is the go-sdk
	// client of this session, whose roots rootsSync keeps in line.
	relay           *relay.Relay
	client          *mcp.Client
	advertisedRoots bool
	rootsSync       *relay.RootsSync
}

// Messages private to the session actor.
type (
	// connected is the lifeline's dial result.
	connected struct {
		cs  *mcp.ClientSession
		pid int
		cat Catalog
		err error
		// transport is the transport that worked (see ConnectDetecting).
		transport messages.Transport
	}
	// lifelineEnded says the connection is gone: it died (err, exit code) or
	// was closed because the actor asked (stopped).
	lifelineEnded struct {
		stopped  bool
		err      error
		exitCode int
		tail     []string
	}
	// stopSession asks for a graceful stop (Handle.Stop); the session
	// answers its parent with Stopped once the process is gone, then stops
	// itself.
	stopSession struct{}
)

// newProps are the props of session id of a server of spec.
func newProps(deps *Deps, spec messages.ServerSpec, id uint64, handle *Handle) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &sessionActor{
			deps:     deps,
			spec:     spec,
			id:       id,
			handle:   handle,
			log:      deps.Logger.Named("session").With(zap.String("server", spec.Name), zap.Uint64("session", id)),
			calls:    make(chan struct{}, deps.MaxCalls),
			hurry:    make(chan struct{}),
			redactor: newSessionRedactor(deps.Redactor(spec), deps.catalogRedactor(spec), deps.CatalogMinSecretBytes),
		}
	})
}

func (s *sessionActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		s.start(c)
	case *connected:
		s.connected(c, m)
	case *lifelineEnded:
		s.lifelineEnded(c, m)
	case *listChanged:
		s.listChanged(c, m.kinds)
	case *catalogListed:
		s.catalogListed(c, m)
	case *relistCooled:
		s.relistCooled(c, m)
	case *subscribeUpstream:
		s.subscribe(c, m)
	case *unsubscribeUpstream:
		s.unsubscribe(c, m)
	case *upstreamSubscribed:
		s.subscribed(c, m)
	case *resourceUpdated:
		s.resourceUpdated(c, m)
	case *subscriptionsAcked:
		s.acked(m)
	case *probeDue:
		s.probe(c, m)
	case *probeResult:
		s.probed(c, m)
	case *setLogLevel:
		s.applyLogLevel(m.level, m.done)
	case *updateRoots:
		s.updateRoots(m)
	case *refreshRoots:
		s.pushRoots()
	case *authNeeded:
		s.authNeeded(c)
	case *stopSession:
		s.stop(c)
	case *actor.Stopping:
		s.stopping()
	case *actor.Stopped:
		close(s.handle.gone) // the lane went at Stopping
	}
}
