package messages

import "github.com/asynkron/protoactor-go/actor"

// FileChanged is a hint that some configured files may have changed. The
// config actor re-reads every configured file whatever Paths says: a trigger
// says that something changed, never what.
type FileChanged struct {
	Paths []string
}

// ResyncRequested asks for a fresh read of every config file and an
// immediate retry of every failed server (backoff and crash-loop budget
// reset). Healthy unchanged servers are not touched.
type ResyncRequested struct {
	// ID correlates the reply and the ResyncCompleted event; any string.
	ID string
	// DryRun computes the plan and changes nothing.
	DryRun bool
	// ReplyTo, when set, receives a *ResyncPlanned once the plan is known
	// and a *ResyncCompleted once it was applied.
	ReplyTo *actor.PID
}

// DesiredState is the whole config as the config actor last read it. The
// generation increases only when the desired state really changed.
type DesiredState struct {
	Generation uint64
	// Servers holds every valid entry, disabled ones included, sorted by name.
	Servers []ServerSpec
	// Invalid holds the entries that cannot run.
	Invalid []InvalidServer
	// Resync is set when this read answers a ResyncRequested.
	Resync *ResyncRequested
}

// ServerFailed reports that a live session died or could not be
// established. Session identifies the session incarnation; a report for a
// session that is no longer current is dropped.
type ServerFailed struct {
	Server  string
	Session uint64
	// Error is a redacted description of what happened.
	Error string
	// ExitCode is the process exit status for stdio servers, -1 when it was
	// killed by a signal or is unknown.
	ExitCode   int
	StderrTail []string
}
