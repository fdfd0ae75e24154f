package messages

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
	// ID correlates the fleet actor's answers (ResyncPlanned, then
	// ResyncCompleted, also published) with the request; any string. Whoever
	// wants the answers registers the ID with the fleet actor first, as
	// Supervisor.Resync does.
	ID string
	// DryRun computes the plan and changes nothing.
	DryRun bool
}

// DesiredState is the whole config as the config actor last read it. The
// generation increases only when the desired state really changed.
type DesiredState struct {
	Generation uint64
	// Servers holds every valid entry, disabled ones included, sorted by name.
	Servers []ServerSpec
	// Invalid holds the entries that cannot run.
	Invalid []InvalidServer
}

// Resync is the config actor's answer to a ResyncRequested, sent to the
// fleet actor once the config files were read again (after the DesiredState
// that read produced, if it produced one): retry every failed server of
// the desired state now, or, for a dry run, only plan.
type Resync struct {
	// ID is the ResyncRequested's.
	ID     string
	DryRun bool
	// Generation is the desired state the resync follows.
	Generation uint64
	// FollowsChange says that the read answering this resync changed the
	// desired state: the DesiredState just sent (Generation) belongs to the
	// resync's answer, so its plan shows the change.
	FollowsChange bool
	// Preview, for a dry run, is what the config files say now, committed or
	// not: the plan is computed against it.
	Preview *DesiredState
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
	// NeedsAuth says the server refused for want of authorization that
	// only a person (`mcpvisor auth login`) can give: the server waits in
	// StateNeedsAuth rather than being retried.
	NeedsAuth bool
}
