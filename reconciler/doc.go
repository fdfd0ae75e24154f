// Package reconciler is mcpvisor's pure core: config files to desired state
// (parse, expand, validate, merge, fingerprint, redact), the trust decision
// for project files (DecideTrust, TrustPolicy, Approvals), the reconcile plan
// (Plan diffs desired against observed), the retry policy (Backoff,
// CrashLoop), and Fleet, the reconciler's state machine: stepped with one
// input at a time, it returns the effects to carry out (spawn, stop, arm a
// timer, publish, reply), and Row projects its status. It does no I/O,
// reads no clock, draws no random numbers and logs nothing: the actors in
// package actors read files, keep time and carry the effects out.
//
// Fleet's specification is reconciler/testdata/fleet/*.txt, scripts of
// inputs and the effects and status rows each must produce (regenerate
// after an intended change with go test ./reconciler/ -run
// TestFleet_Scripts -rewrite).
//
// Every field of a server spec is described once, in the table of
// config_fields.go: how it is read from an entry, whether a change
// restarts the server (it is fingerprinted) or applies live, and which
// secrets it holds. Parsing, Fingerprint, ChangedFields, LiveChanges,
// SecretsOf and SameDesired are loops over that table; ServerFields
// exposes it.
//
// Goroutines: none.
package reconciler
