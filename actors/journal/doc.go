// Package journal is mcpvisor's event log: every event a Supervisor
// publishes gets a sequence number in one total order, the newest ones
// are kept for replay (bounded in count and in bytes), and followers read
// them without a gap or a duplicate.
//
// A Supervisor owns one Journal; the gateway, the HTTP API, the CLI's
// event printer and tests follow it with Supervisor.Follow, which is
// Journal.Follow. Fakes of a fleet (httpapitest) use a Journal of their
// own, so that every follower of mcpvisor's events runs the same code.
//
// # Goroutines and who stops them
//
// Publish runs on the publisher's goroutine (an actor's, a session's
// notification goroutine) and never blocks on a consumer: it takes a
// mutex, keeps the event and wakes the followers. Options.Stream, if set,
// is published to on that goroutine too. Each Feed runs one goroutine
// that copies events from the journal to its channel; Feed.Close ends it
// and waits for it, and Journal.Close ends every feed once it delivered
// what was kept.
package journal
