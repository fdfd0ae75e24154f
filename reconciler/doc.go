// Package reconciler is mcpvisor's pure core: Fleet, the state machine of
// every server's record, stepped with one input at a time and returning
// the effects to carry out (spawn, stop, arm a timer, publish, reply, keep
// a catalog in the cache), and Row, its projection for status and
// routing, a cached catalog included (fleet_cache.go); the reconcile plan
// (Plan diffs desired against observed); and the retry policy (Backoff,
// CrashLoop). It does no I/O, reads no clock, draws no random numbers and
// logs nothing: the actors (actors/internal/fleet) keep time and carry
// the effects out.
//
// Fleet's specification is reconciler/testdata/fleet/*.txt, scripts of
// inputs and the effects and status rows each must produce (regenerate
// after an intended change with go test ./reconciler/ -run
// TestFleet_Scripts -rewrite).
//
// Config files become a desired state in package config
// (reconciler/config); what mcpvisor says is kept free of secrets by
// package redact (reconciler/redact).
//
// Goroutines: none.
package reconciler
