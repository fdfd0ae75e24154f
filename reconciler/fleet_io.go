package reconciler

import (
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Input is what the fleet is stepped with: one of the types below, each
// carrying the clock reading at which the shell handled it. They are the
// fleet actor's messages, translated.
type Input interface{ isInput() }

// DesiredArrived is a new desired state from the config actor.
type DesiredArrived struct {
	Now     time.Time
	Desired *messages.DesiredState
}

// DiagnosticsArrived carries the config actor's diagnostics into status.
type DiagnosticsArrived struct {
	Diagnostics []messages.Diagnostic
}

// ResyncArrived is a resync from the config actor, after the desired state
// it follows.
type ResyncArrived struct {
	Now    time.Time
	Resync *messages.Resync
}

// SessionReady reports that a session connected and listed its tools. PID
// is its server's process id (0 for HTTP).
type SessionReady struct {
	Now     time.Time
	Server  string
	Session uint64
	PID     int
	Tools   []messages.Tool
	// Transport is the transport that worked, when it is not the spec's
	// (an http entry that fell back to HTTP+SSE); empty means the spec's.
	Transport messages.Transport
	// Prompts, Resources and Templates are the rest of its catalog;
	// Skipped the items it listed that were too large to expose.
	Prompts   []messages.Prompt
	Resources []messages.Resource
	Templates []messages.ResourceTemplate
	Skipped   []messages.CatalogItemSkipped
}

// SessionTools reports a ready session's new tool list (after list_changed).
type SessionTools struct {
	Now     time.Time
	Server  string
	Session uint64
	Tools   []messages.Tool
}

// SessionFailed reports the death, or the failed start, of a session.
// Jitter, in [0, 1), is the random part of the backoff that follows.
type SessionFailed struct {
	Now     time.Time
	Failure *messages.ServerFailed
	Jitter  float64
}

// SessionStopped reports that a session the fleet stopped (or that ended
// on its own after failing) is gone, its process with it.
type SessionStopped struct {
	Now     time.Time
	Server  string
	Session uint64
}

// RetryDue is the firing of the retry timer armed with Token; a fire whose
// token is no longer current is dropped.
type RetryDue struct {
	Now    time.Time
	Server string
	Token  uint64
}

// ServerWanted says that a request (a tool call, prompt get, resource
// read or completion) wants Server now; ID names this use. A use is
// answered at most once, by a Grant or a Refuse (one released while it
// waits gets neither); a lazy server that is idle (or failed, once its
// backoff delay has passed) is started for it. A use holds the server (no
// idle stop) while it waits and from its Grant until its ServerReleased.
type ServerWanted struct {
	Now    time.Time
	ID     string
	Server string
}

// ServerReleased ends use ID of Server: its request is done, or it gave
// up waiting. An unknown ID is ignored.
type ServerReleased struct {
	Now    time.Time
	ID     string
	Server string
}

// IdleDue is the firing of the idle timer armed with Token.
type IdleDue struct {
	Now    time.Time
	Server string
	Token  uint64
}

func (DesiredArrived) isInput()     {}
func (ServerWanted) isInput()       {}
func (ServerReleased) isInput()     {}
func (IdleDue) isInput()            {}
func (DiagnosticsArrived) isInput() {}
func (ResyncArrived) isInput()      {}
func (SessionReady) isInput()       {}
func (SessionTools) isInput()       {}
func (SessionFailed) isInput()      {}
func (SessionStopped) isInput()     {}
func (RetryDue) isInput()           {}

// Effect is what the shell must do after a step, in order: one of the
// types below. Events and replies go out after the shell has swapped its
// view of the fleet (Fleet.TakeChanged), so whoever reacts to one reads
// the state it announces.
type Effect interface{ isEffect() }

// Spawn starts session Session for Spec.
type Spawn struct {
	Session uint64
	Spec    messages.ServerSpec
}

// Stop asks session Session of Server to stop gracefully; a SessionStopped
// follows once its process is gone.
type Stop struct {
	Server  string
	Session uint64
}

// ArmRetry arms Server's retry timer: after Delay, step the fleet with a
// RetryDue carrying Token. A server has at most one armed timer.
type ArmRetry struct {
	Server string
	Token  uint64
	Delay  time.Duration
}

// CancelRetry stops Server's armed retry timer.
type CancelRetry struct {
	Server string
}

// Publish publishes Event on the event stream.
type Publish struct {
	Event messages.Event
}

// Reply sends Message (a *messages.ResyncPlanned or *messages.ResyncCompleted)
// to whoever waits for resync ID.
type Reply struct {
	ID      string
	Message messages.Event
}

// ArmIdle arms Server's idle timer: after Delay, step the fleet with an
// IdleDue carrying Token. A server has at most one armed idle timer.
type ArmIdle struct {
	Server string
	Token  uint64
	Delay  time.Duration
}

// CancelIdle stops Server's armed idle timer.
type CancelIdle struct {
	Server string
}

// Grant answers use ID: Server is ready on Session, which takes the
// request. The use holds the server until its ServerReleased.
type Grant struct {
	ID      string
	Server  string
	Session uint64
}

// Refuse answers use ID: Server cannot take the request; Error says why
// (redacted already). A refused use holds nothing.
type Refuse struct {
	ID     string
	Server string
	Error  string
}

func (ArmIdle) isEffect()     {}
func (CancelIdle) isEffect()  {}
func (Grant) isEffect()       {}
func (Refuse) isEffect()      {}
func (Spawn) isEffect()       {}
func (Stop) isEffect()        {}
func (ArmRetry) isEffect()    {}
func (CancelRetry) isEffect() {}
func (Publish) isEffect()     {}
func (Reply) isEffect()       {}
