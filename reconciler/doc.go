// Package reconciler is mcpvisor's pure core: config files to desired state
// (parse, expand, validate, merge, fingerprint, redact), the reconcile plan
// (Plan diffs desired against observed), and the retry policy (Backoff,
// CrashLoop). It does no I/O, reads no clock and logs nothing: the actors
// in package actors read files, keep time and carry plans out.
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
