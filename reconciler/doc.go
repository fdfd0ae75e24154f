// Package reconciler is mcpvisor's pure core: config files to desired state
// (parse, expand, validate, merge, fingerprint, redact), the trust decision
// for project files (DecideTrust, TrustPolicy, Approvals), the reconcile plan
// (Plan diffs desired against observed), and the retry policy (Backoff,
// CrashLoop). It does no I/O, reads no clock and logs nothing: the actors
// in package actors read files, keep time and carry plans out.
//
// Goroutines: none.
package reconciler
