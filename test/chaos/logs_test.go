package chaos_test

import (
	"encoding/json"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// observedLogging captures every log line of one Supervisor, at Debug
// level, protoactor's own lines included (the Supervisor logs
// protoactor's Info lines, a recovered panic among them, as Debug).
type observedLogging struct {
	logger *zap.Logger
	logs   *observer.ObservedLogs
}

func newObservedLogging() *observedLogging {
	core, logs := observer.New(zapcore.DebugLevel)
	return &observedLogging{logger: zap.New(core), logs: logs}
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
