//lint:file-ignore SA1019 logging is deprecated from protocol 2026-07-28 on (SEP-2577) but is what this file relays.

package session

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/relay"
)

// setLogLevel asks a session's server to log at a level; done (buffered,
// may be nil) gets one value when the server answered or will not be
// asked.
type setLogLevel struct {
	level string
	done  chan<- struct{}
}

// applyLogLevel sends logging/setLevel to a connected server that
// advertised logging on a protocol that has it, on a goroutine the
// session owns, bounded by the list timeout; done (may be nil) is told
// when that is over.
func (s *sessionActor) applyLogLevel(level string, done chan<- struct{}) {
	cs := s.cs
	var init *mcp.InitializeResult
	if cs != nil {
		init = cs.InitializeResult()
	}
	if level == "" || init == nil || init.Capabilities == nil || init.Capabilities.Logging == nil || init.ProtocolVersion >= relay.StatelessProtocol {
		tell(done)
		return
	}
	stop, clock, timeout, log := s.ctx, s.deps.Clock, s.deps.ListTimeout, s.log
	s.deps.Work.Add(1)
	go func() {
		defer s.deps.Work.Done()
		defer tell(done)
		ctx, cancel := context.WithCancel(stop)
		defer cancel()
		timer := clock.AfterFunc(timeout, cancel, "session", "set-level")
		defer timer.Stop()
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil && stop.Err() == nil {
			log.Debug("logging/setLevel failed", zapError(s.redactor, err))
		}
	}()
}

// zapError is err as a log field, redacted.
func zapError(r relay.Redactor, err error) zap.Field {
	return zap.String("error", r.Redact(err.Error()))
}

// tell sends one value on a buffered done channel, if there is one.
func tell(done chan<- struct{}) {
	if done != nil {
		done <- struct{}{}
	}
}
