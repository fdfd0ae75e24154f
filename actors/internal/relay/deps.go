//lint:file-ignore SA1019 sampling and logging are deprecated from protocol 2026-07-28 on (SEP-2577) but are what this package relays.

package relay

import (
	"context"
	"log/slog"
	"sync"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/journal"
)

// Deps are what a session's relay uses: the embedder's handlers, the
// clock, the journal its log messages go to, the count of goroutines
// Supervisor.Close waits for, the go-sdk client's logger, the log
// level asked of servers last, and the Supervisor's Admission, which
// bounds each server's requests (nil: no bound).
type Deps struct {
	Handlers  Handlers
	Admission *Admission
	Clock     quartz.Clock
	Journal   *journal.Journal
	Work      *sync.WaitGroup
	Logger    *slog.Logger
	LogLevel  func() string
}

// Handlers answer what servers ask of their client and take what they
// log (actors.Options: Sampling, Elicitation, Honourable, Logging). Each
// may be nil: a capability without a handler is not advertised.
type Handlers struct {
	Sampling    func(ctx context.Context, server string, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	Elicitation func(ctx context.Context, server string, params *mcp.ElicitParams) (*mcp.ElicitResult, error)
	Honourable  func() *mcp.ClientCapabilities
	Logging     func(ctx context.Context, server string, params *mcp.LoggingMessageParams)
}

// HonourableNow is what Handlers.Honourable says can be honoured now;
// without it, everything.
func (h Handlers) HonourableNow() *mcp.ClientCapabilities {
	if h.Honourable != nil {
		if c := h.Honourable(); c != nil {
			return c
		}
		return &mcp.ClientCapabilities{}
	}
	return &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}, Elicitation: &mcp.ElicitationCapabilities{}, RootsV2: &mcp.RootCapabilities{}}
}

// Redactor removes secrets from text: the session's, which learns the
// tokens the session obtains.
type Redactor interface {
	Redact(text string) string
}
