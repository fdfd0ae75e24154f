// Package fleet is a Supervisor's actor tree and the actor at its heart:
// the fleet actor, the shell around reconciler.Fleet and the single
// writer of "what should run". It turns each message into a fleet input
// (with the clock reading and the backoff jitter), carries out the
// effects (spawns and stops session actors, its children, which it never
// restarts; arms and cancels retry and idle timers on the quartz clock;
// samples connecting process groups; hands the catalog cache's writer
// what to keep), swaps the view (package view), and only then publishes
// the events and answers resyncs and lazy uses, so whoever reacts to one
// reads the state it announces. The rules are all the pure core's; this
// package does the I/O.
//
// Start spawns the tree: a root actor, the failure policy of the core
// actors under it (failure.go), over the fleet actor, the config actor and
// the watcher actor (package intake). Tree is what the Supervisor asks of
// it: the view, resyncs, lazy uses, subscriptions, its end.
//
// # Goroutines and who stops them
//
//   - Each actor runs on protoactor's goroutines; Tree.Stop poisons the
//     root and waits, bounded on the quartz clock, until the root actor
//     has stopped, after every other.
//   - The fleet actor reads the connecting servers' process groups from
//     /proc on a goroutine of its own, one sample at a time, counted in
//     Deps.Work (connects.go, proc_cpu.go).
//   - Timers (retry, idle, connect sample) are quartz timers whose
//     callbacks only send to the fleet actor.
//   - The Supervisor's callers wait for the fleet actor's answers on
//     their own goroutines, each until its context ends or the tree does:
//     a resync for its outcome (no bound but the caller's), a use (of a
//     lazy server, or of one that is starting, for a request that came
//     early) at most the longer of the server's connect and call timeouts,
//     and a subscription at most the call bound, both on the quartz clock.
//
// Everything a session starts is the session's (package session), counted
// in the same Work.
package fleet
