package chaos_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// observedLogging captures every log line of one Supervisor, at Debug
// level, protoactor's own lines included.
type observedLogging struct {
	logger *zap.Logger
	logs   *observer.ObservedLogs
}

func newObservedLogging() *observedLogging {
	core, logs := observer.New(zapcore.DebugLevel)
	return &observedLogging{logger: zap.New(core), logs: logs}
}

// actorSystem is actors.NewActorSystem with protoactor's logs kept at
// Debug level: actors.NewActorSystem keeps Warn and above only, and
// protoactor reports a recovered panic ("[ACTOR] Recovering") at Info,
// which the test must see. Close does not shut down a system it was given:
// the caller does.
func (o *observedLogging) actorSystem() *actor.ActorSystem {
	l := o.logger.Named("protoactor")
	return actor.NewActorSystem(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
			return slog.New(zapslog.NewHandler(l.Core(), zapslog.WithName(l.Name())))
		}),
		actor.WithDeadLetterThrottleInterval(10*time.Millisecond),
		actor.WithDeadLetterRequestLogging(false),
	)
}

// logLine renders an entry with its fields as one line of JSON-ish text,
// for secret scans and failure messages.
func logLine(e observer.LoggedEntry) string {
	fields, _ := json.Marshal(e.ContextMap())
	return e.Time.Format("15:04:05.000") + " " + e.Level.CapitalString() + " " + e.LoggerName + " " + e.Message + " " + string(fields)
}

// isPanicLine reports a recovered panic: protoactor logs "[ACTOR]
// Recovering" (Info) with the panic's value and, with developer
// supervision logging, "[Supervision]" (Error); anything else that
// recovers a panic and logs it would quote Go's "panic:".
func isPanicLine(e observer.LoggedEntry) bool {
	line := logLine(e)
	return strings.Contains(line, "[ACTOR] Recovering") || strings.Contains(line, "[Supervision]") || strings.Contains(line, "panic:")
}
