// Package chaos runs mcpvisor, embedded with actors.Start, against a fleet
// of example and HTTP servers while a seeded random schedule injects faults
// (kill -9, SIGSTOP, crashes, hung, failing and garbage handshakes, config
// rewrites of every kind, servers added, removed, changed and moved,
// resyncs), with tool calls throughout; then it waits for convergence and
// checks that live equals desired, that no unchanged ready server was
// restarted, that every call got one answer, that no secret was said and
// that nothing leaked. docs/reliability.md describes the schedule, the
// invariants and the figures of the last long run.
//
// TestChaos injects faults for 45 s by default; -chaos.duration or
// CHAOS_DURATION sets another duration and -chaos.seed or CHAOS_SEED
// replays a seed (`make chaos`). The TestRepro_* tests pin the bugs the
// chaos run found as small deterministic tests.
//
// How a run knows what mcpvisor read: every valid write of a config file
// carries a unique unknown field in its file's disabled marker entry, and
// mcpvisor names unknown fields in its diagnostics, so each config.loaded
// event says which write of each file it used; the test's model says what
// those writes declared (model_test.go, check_test.go).
//
// Goroutines and processes: the test goroutine runs the schedule; three
// callers and at most one resync run on goroutines of their own and end
// before the Supervisor is closed; the event follower drains the
// subscription on one until after Close. Cleanup stops them all if the
// test ends early. Server processes belong to the
// Supervisor; the test only signals them, through pidfds and only if their
// environment carries the run's marker, so no process of anyone else is
// ever signalled. TestMain checks for leaked goroutines.
package chaos
