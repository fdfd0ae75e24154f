// Package reconciler is mcpvisor's pure core: config files to desired state
// (parse, expand, validate, merge, fingerprint, redact), the trust decision
// for project files (DecideTrust, TrustPolicy, Approvals), the reconcile plan
// (Plan diffs desired against observed), the retry policy (Backoff,
// CrashLoop), and Fleet, the reconciler's state machine: stepped with one
// input at a time, it returns the effects to carry out (spawn, stop, arm a
// timer, publish, reply, keep a catalog in the cache), and Row projects
// its status, a cached catalog included (fleet_cache.go). It does no I/O,
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
// Files are read as the tool that wrote them reads them: VS Code's inputs
// and predefined variables (config_inputs.go) and envFile
// (config_envfile.go, dotenv.go), other tools' fields ignored or mapped
// (config_foreign.go), Claude Code's per-project servers in ~/.claude.json
// (config_claude.go) and its headersHelper output (headers_helper.go).
// Whatever needs the outside world (an envFile's bytes, whether a file
// exists, stored input values) is injected through LoadOptions. Names are
// kept as written; each server's exposed prefix is derived here
// (naming.go), unique across the config. DiscoveryCandidates is the table
// of the files tools keep MCP servers in (discover.go). The golden output
// of `mcpvisor check` for one fixture per rule is in
// reconciler/testdata/check.
//
// Goroutines: none.
package reconciler
