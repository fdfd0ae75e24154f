package messages

import "time"

// Event is implemented by every event payload. EventType is the stable name
// used in the HTTP event stream and in docs/events.md.
type Event interface {
	EventType() string
}

// Envelope is what the event journal publishes on the actor system's event
// stream: every event with its sequence number in one total order.
type Envelope struct {
	Seq   uint64    `json:"seq"`
	Time  time.Time `json:"time"`
	Event Event     `json:"event"`
}

// State is the lifecycle state of one server.
type State string

// The server states. Transitions: starting → ready, starting → failed,
// ready → failed, failed → starting, any → stopping → stopped; plus pending
// (queued for a connect slot), invalid (bad config entry), untrusted and
// disabled.
const (
	StatePending  State = "pending"
	StateStarting State = "starting"
	StateReady    State = "ready"
	StateFailed   State = "failed"
	StateStopping State = "stopping"
	StateStopped  State = "stopped"
	StateInvalid  State = "invalid"
	StateDisabled State = "disabled"
)

// StateUntrusted marks an entry of a project config file that the user has
// not approved (`mcpvisor trust`): nothing is spawned, contacted or
// expanded for it, and it shadows no trusted entry.
const StateUntrusted State = "untrusted"

// StateNeedsInput marks an entry that refers to a VS Code input
// (${input:ID}) without a value: it starts nothing until the value is set
// (MCPVISOR_INPUT_<ID>, or `mcpvisor input set ID`). It is not a failure:
// it neither backs off nor counts against the crash-loop budget.
const StateNeedsInput State = "needs-input"

// StateNeedsAuth marks a remote server that asks for OAuth authorization
// mcpvisor has no usable token for: it waits, without backoff, for
// `mcpvisor auth login NAME` (and the resync that follows it) or a config
// change.
const StateNeedsAuth State = "needs-auth"

// StateIdle marks a lazy server (autostart "lazy") that is not running:
// its catalog, listed by its last session, stays exposed; the first call,
// get or read that needs it starts it, and it goes back to idle after its
// idle timeout without use. It neither backs off nor counts against the
// crash-loop budget.
const StateIdle State = "idle"

// ConfigLoaded is published after every read of the config files.
type ConfigLoaded struct {
	Generation  uint64       `json:"generation"`
	Changed     bool         `json:"changed"`
	Servers     int          `json:"servers"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// ServerStateChanged is one transition of one server.
type ServerStateChanged struct {
	Server     string    `json:"server"`
	Generation uint64    `json:"generation"`
	Session    uint64    `json:"session"`
	From       State     `json:"from"`
	To         State     `json:"to"`
	Reason     string    `json:"reason"`
	Attempt    int       `json:"attempt,omitempty"`
	PID        int       `json:"pid,omitempty"`
	NextRetry  time.Time `json:"nextRetry,omitzero"`
	Error      string    `json:"error,omitempty"`
	StderrTail []string  `json:"stderrTail,omitempty"`
}

// Tool is one tool of one server as mcpvisor exposes it.
type Tool struct {
	Server string `json:"server"`
	// Prefix is the server's exposed prefix (see ServerSpec.Prefix): the
	// tool is exposed as actors.QualifiedName(Prefix, Name).
	Prefix       string `json:"prefix"`
	Name         string `json:"name"`
	Title        string `json:"title,omitempty"`
	Description  string `json:"description,omitempty"`
	InputSchema  any    `json:"inputSchema,omitempty"`
	OutputSchema any    `json:"outputSchema,omitempty"`
	// Annotations are the server's hints about the tool (readOnlyHint,
	// destructiveHint, ...), as JSON data.
	Annotations any `json:"annotations,omitempty"`
	// Hash covers name, title, description, schemas and annotations; a
	// changed hash under the same name is a changed tool.
	Hash string `json:"hash"`
	// Cached marks a tool of a server that is not ready yet, listed from
	// its last catalog on disk (see Options.CacheDir in package actors).
	Cached bool `json:"cached,omitempty"`
}

// ToolsChanged is published when a server's exposed tool set changes,
// including when it becomes ready (everything added) or stops (everything
// removed).
type ToolsChanged struct {
	Server  string   `json:"server"`
	Session uint64   `json:"session"`
	Tools   []Tool   `json:"tools"`
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// Action is what the fleet actor does with one server.
type Action string

// The plan actions.
const (
	ActionStart   Action = "start"
	ActionStop    Action = "stop"
	ActionRestart Action = "restart"
	ActionKeep    Action = "keep"
	ActionRetry   Action = "retry"
)

// PlanStep is one server's line in a plan.
type PlanStep struct {
	Server string `json:"server"`
	Action Action `json:"action"`
	Reason string `json:"reason"`
}

// PlanComputed is published when the fleet actor has diffed a desired state
// against the live sessions.
type PlanComputed struct {
	Generation uint64     `json:"generation"`
	DryRun     bool       `json:"dryRun"`
	Steps      []PlanStep `json:"steps"`
}

// PlanApplied is published once every step of a plan was carried out (the
// sessions were started or stopped; readiness follows as state changes).
type PlanApplied struct {
	Generation uint64     `json:"generation"`
	Steps      []PlanStep `json:"steps"`
}

// ResyncPlanned answers a ResyncRequested with the plan.
type ResyncPlanned struct {
	ID         string     `json:"id"`
	Generation uint64     `json:"generation"`
	DryRun     bool       `json:"dryRun"`
	Steps      []PlanStep `json:"steps"`
}

// ServerOutcome is where one server of a resync ended up.
type ServerOutcome struct {
	Server string `json:"server"`
	State  State  `json:"state"`
	Error  string `json:"error,omitempty"`
}

// ResyncCompleted is published, and sent to the requester, when every
// server a resync started or retried has settled (ready or failed).
type ResyncCompleted struct {
	ID         string          `json:"id"`
	Generation uint64          `json:"generation"`
	Outcomes   []ServerOutcome `json:"outcomes"`
}

// WatcherDegraded is published when the file watcher cannot use file-system
// notifications and falls back to polling.
type WatcherDegraded struct {
	Reason string `json:"reason"`
}

// SupervisorFailed is published once when a core actor (fleet,
// config or watcher) failed and the Supervisor cannot go on: it stops
// every server, Supervisor.Done is closed and every call returns
// Supervisor.Err. Only what the stopping actors had under way may follow
// it.
type SupervisorFailed struct {
	// Actor is the actor that failed: "fleet", "config" or "watcher".
	Actor string `json:"actor"`
	// Reason is what happened (a panic's value), redacted.
	Reason string `json:"reason"`
}

// FeedTruncated is never published: a feed (Supervisor.Follow) delivers
// it, in an Envelope with Seq 0, in place of events it could not deliver
// because the journal no longer kept them. The feed goes on with event
// Next.
type FeedTruncated struct {
	// Since is the last event delivered before the gap (or the sequence
	// number the feed was asked to start after).
	Since uint64 `json:"since"`
	// Next is the first event delivered after the gap.
	Next   uint64 `json:"next"`
	Reason string `json:"reason"`
}

// EventType implementations.

func (*ConfigLoaded) EventType() string       { return "config.loaded" }
func (*ServerStateChanged) EventType() string { return "server.state" }
func (*ToolsChanged) EventType() string       { return "tools.changed" }
func (*PlanComputed) EventType() string       { return "plan.computed" }
func (*PlanApplied) EventType() string        { return "plan.applied" }
func (*ResyncPlanned) EventType() string      { return "resync.planned" }
func (*ResyncCompleted) EventType() string    { return "resync.completed" }
func (*WatcherDegraded) EventType() string    { return "watcher.degraded" }
func (*SupervisorFailed) EventType() string   { return "supervisor.failed" }
func (*FeedTruncated) EventType() string      { return "stream.truncated" }
