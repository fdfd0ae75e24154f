// Package intake is where the fleet's desired state comes from: the
// config actor reads every config file (with the trust store's approvals
// and the input store's values) into one desired state, and the watcher
// actor turns edits of those files, and of the envFiles the last read
// found (envfiles.go), into FileChanged for it.
//
// The config actor is level-triggered: a FileChanged or a ResyncRequested
// says only that something may have changed, and it reads every file
// again; at most one read is in flight, and triggers during a read cause
// exactly one more. The generation grows only when what should run
// changed. It sends the fleet actor a *messages.DesiredState, the
// *messages.Resync answers of the resyncs a read answers, and
// *Diagnostics.
//
// # Goroutines and who stops them
//
//   - Each config read runs on a goroutine of the config actor's (counted
//     in Deps.Work), which ends by sending its result; a panic in it (the
//     embedder's LookupEnv) is sent back as Recovered, and the actor fails
//     with it, so that its supervisor's failure policy sees it.
//   - The watcher actor starts the file watcher (package watcher) when it
//     starts and closes it when it stops or is restarted; the watcher's
//     callbacks only send. A panicking notifier is an error the watcher
//     reports, not a crash (watcher_guard.go).
package intake
