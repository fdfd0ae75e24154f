//lint:file-ignore SA1019 roots are deprecated from protocol 2026-07-28 on (SEP-2577), still answered for the servers that ask.

package session

import (
	"context"
	"sync"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// Deps are what every session of a Supervisor uses, the same for all of
// them; Spawn adds the spec and the session id.
type Deps struct {
	Clock  quartz.Clock
	Logger *zap.Logger
	// Work counts every goroutine a session starts; Supervisor.Close
	// waits for it once the actors have stopped.
	Work *sync.WaitGroup
	// Context is the parent of every lifeline: cancelling it ends them all,
	// whatever state the actors are in.
	Context context.Context
	// Relay is what each session's relay uses, but for its Clock and
	// Work: the session's own (relayDeps).
	Relay relay.Deps
	// Redactor is the redactor for everything secret about a spec (its
	// own secrets and the inherited environment's).
	Redactor func(spec messages.ServerSpec) *redact.Redactor
	// CatalogRedactor is the redactor of a spec's listed catalogs: the
	// same secrets but for the short ones, which ordinary catalog text
	// holds ("true" in every schema). Nil redacts nothing.
	CatalogRedactor func(spec messages.ServerSpec) *redact.Redactor
	// CatalogMinSecretBytes is the shortest secret learned at run time (an
	// OAuth token, a headersHelper's header value) that joins a session's
	// catalog redactor: the bound CatalogRedactor keeps to.
	CatalogMinSecretBytes int
	// Environ is the environment a stdio server of spec starts with,
	// before its own env; BaseEnviron the embedder's own (a headersHelper
	// runs in it). Either fails if the embedder's function panicked.
	Environ     func(spec messages.ServerSpec) ([]string, error)
	BaseEnviron func() ([]string, error)
	// Dial, if set, builds a spec's transport before the built-in ones do.
	// ProcessGroups, if set, is told of every stdio server's process
	// group (Options.ProcessGroups).
	Dial          func(spec messages.ServerSpec) (mcp.Transport, error)
	ProcessGroups func(pgid int) (gone func())
	// Roots, if set, answers the roots of a server whose config lists
	// none.
	Roots func() []*mcp.Root
	// OAuthDir is the token store; "" turns OAuth off.
	OAuthDir string
	// Tracing traces what sessions send; nil traces nothing.
	Tracing *Tracing
	// Version is mcpvisor's, sent as the MCP client's.
	Version string
	Limits
}

// Limits are the timeouts and bounds of every session; a server's own
// connect and call timeouts replace the defaults here.
type Limits struct {
	ConnectTimeout, CallTimeout, ListTimeout, StopGrace time.Duration
	// CloseGrace is the stop grace of the Supervisor's Close: half of it
	// before SIGTERM, the rest before SIGKILL (stop.go); zero: StopGrace,
	// as for the fleet's stops.
	CloseGrace time.Duration
	// ProbeInterval is how often a ready session is pinged (negative:
	// never); ProbeTimeout bounds a ping; ProbeFailures misses in a row
	// fail the server.
	ProbeInterval, ProbeTimeout time.Duration
	ProbeFailures               int
	// MaxCalls bounds a session's concurrent requests.
	MaxCalls int
	// RelistInterval is the least time between the starts of two
	// re-lists of one kind after list_changed (relist.go); zero or
	// negative: none (still one in flight at a time).
	RelistInterval time.Duration
}

// relayDeps are a session's relay's: Relay, on the session's clock and
// WaitGroup.
func (d *Deps) relayDeps() relay.Deps {
	r := d.Relay
	r.Clock, r.Work = d.Clock, d.Work
	return r
}

func (d *Deps) catalogRedactor(spec messages.ServerSpec) *redact.Redactor {
	if d.CatalogRedactor == nil {
		return nil
	}
	return d.CatalogRedactor(spec)
}
