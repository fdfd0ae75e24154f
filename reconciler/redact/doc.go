// Package redact keeps secrets out of everything mcpvisor says: errors,
// events, log lines, stderr tails and API answers. Anything that may
// carry server-supplied or config-derived text goes through
// Redactor.Redact, which also bounds it (MaxBytes); Bound bounds text that
// holds no secret. Which values of a server's spec are secret is the
// config's to say (config.SecretsOf).
//
// Goroutines: none. A Redactor is immutable and safe for concurrent use.
package redact
