// Package config turns MCP config files into one desired state: parse
// (JSONC, every tool's format), expand variables, validate, merge across
// files in precedence order, fingerprint, and decide trust for project
// files (DecideTrust, TrustPolicy, Approvals). It is pure: whatever needs
// the outside world (the files' bytes, an envFile's, whether a file
// exists, stored input values, the environment) is handed in through
// FileContent and LoadOptions, and package actors/ondisk reads them.
//
// Every field of a server spec is described once, in the table of
// fields.go: how it is read from an entry, whether a change restarts the
// server (it is fingerprinted) or applies live, and which secrets it
// holds. Parsing, Fingerprint, ChangedFields, LiveChanges, SecretsOf and
// SameDesired are loops over that table; ServerFields exposes it.
//
// Files are read as the tool that wrote them reads them: VS Code's inputs
// and predefined variables (inputs.go) and envFile (envfile.go,
// dotenv.go), other tools' fields ignored or mapped (foreign.go), Claude
// Code's per-project servers in ~/.claude.json (claude.go) and its
// headersHelper output (headers_helper.go). Names are kept as written;
// each server's exposed prefix is derived here (naming.go), unique across
// the config, and so is how an item is named across the fleet
// (QualifiedName, SplitName). DiscoveryCandidates is the table of the files tools keep MCP
// servers in (discover.go). The golden output of `mcpvisor check` for one
// fixture per rule is in reconciler/config/testdata/check.
//
// Goroutines: none.
package config
