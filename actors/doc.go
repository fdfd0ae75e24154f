// Package actors is mcpvisor's imperative shell on protoactor-go: one file
// per actor, the MCP transports, the event journal and Supervisor, the
// embedding API.
//
// # Actors
//
//	root        parent of the others; stopping it stops everything; the
//	            supervisor strategy of the core actors (failure policy)
//	reconciler  the shell around reconciler.Fleet, the single writer of
//	            "what should run": turns messages into fleet inputs and
//	            carries out the effects (spawns and stops session actors,
//	            its children, which it never restarts; arms retry timers;
//	            swaps the read-only fleet view, then publishes and replies);
//	            it also counts the resource subscriptions per URI and has
//	            the owning server's current session hold each upstream; it
//	            answers the uses of lazy servers: a request for one asks
//	            the reconciler for it (which starts it when idle) and waits
//	            on its own goroutine, at most the connect timeout, for the
//	            session to send the request to (reconciler_lazy.go); and it
//	            steps the fleet with the catalog cache read at start and
//	            hands the writer the entries the fleet keeps or forgets
//	config      reads every config file into one desired state (one read in
//	            flight at most; the generation grows only on real changes)
//	watcher     owns the file watcher (config files, trust store and input
//	            store); its callbacks become FileChanged
//	session     one per live session: dials, lists its catalog (tools,
//	            prompts, resources, templates) and follows list_changed,
//	            serves calls, gets, reads and completions, holds resource
//	            subscriptions, notices death, stops gracefully
//
// Rules every actor keeps: Receive is one type switch; blocking work
// (connect, list, call, close, file reads) never runs inside Receive but on
// a goroutine that captures the actor's PID and root context and ends by
// sending a result message; results carry a generation or session id so
// stale ones are dropped; all timing goes through the quartz clock.
//
// # Failures
//
// The root actor is the core actors' supervisor strategy (failure.go): a
// failed watcher is rebuilt; a failed reconciler or config actor ends
// the Supervisor loudly (SupervisorFailed, Done, Err, every call failing
// at once, every server stopped). Goroutines that run user-supplied code
// recover a panic and hand it to their actor; a panicking Notifier is an
// error; a panicking Options.Environ fails one server's start.
//
// # Goroutines and who stops them
//
//   - Each session actor's lifeline goroutine owns its connection from dial
//     to close (a stdio server's process is waited for by a goroutine its
//     transport starts when the connection closes, which ends with the
//     process: internal/transport); each subscribe and unsubscribe, each
//     re-list of a kind and each health probe runs on its own goroutine;
//     each tool call, prompt get, resource read and completion runs on its
//     caller's goroutine, with the lane the session publishes while it is
//     connected (session_lane.go), and ends when the session's stop
//     context does; the config actor reads files on a
//     goroutine (the config files, envFiles, the input store, and the
//     trust store when Options.ApprovalRequired names project files); the
//     reconciler reads the connecting servers' process groups from /proc
//     on a goroutine of its own, one sample at a time
//     (reconciler_connects.go);
//   - An entry's headersHelper subprocess runs on the goroutine of the HTTP
//     request that needs its headers (the lifeline's during the
//     handshake), under that request's context: cancelling it kills the
//     helper's process group, and the request waits for it;
//     timers (connect, call, list, subscribe, probe, backoff, idle, connect sample, stop grace) are quartz
//     timers whose callbacks only send a message. All goroutines are
//     counted in one WaitGroup: Supervisor.Close stops the actors (which
//     cancels the lifelines: servers get the stop grace, then their process
//     groups are signalled) and then waits for it.
//   - Each session's relay (internal/relay) runs on the go-sdk's handler
//     goroutines, not the actor's: log notifications (in order, on the
//     connection's notification goroutine) and sampling and elicitation
//     requests (concurrently). Progress the connection's reader takes out
//     of the go-sdk's way and queues on its call; a
//     goroutine per call with progress queued delivers it in order and
//     ends when the queue is empty, counted in the WaitGroup (over
//     streamable HTTP, progress takes the notification goroutine too).
//     A call's input requests are answered on goroutines of the call's
//     waited for before it retries. The relay shares only its own lock
//     with the goroutines that make the session's requests, which register
//     their calls with it and, once a call returned, wait (at most a second, quartz) for
//     the notifications read before its result to be relayed. A
//     logging/setLevel and each roots update run on a goroutine of the
//     session's, counted in the WaitGroup.
//   - The catalog cache's writer (internal/catcache) is started by Start,
//     unless Options.CacheDir is "-", and writes and removes the cache's
//     entries the reconciler hands it; Supervisor.Close closes it once the
//     actors have stopped, and it ends after writing what was pending
//     (counted in the WaitGroup). The cache is read in Start, on the
//     caller's goroutine.
//   - The watcher actor starts the file watcher and closes it when it stops.
//   - Each Feed (Supervisor.Follow) runs one goroutine that copies events
//     from the journal to its channel; Feed.Close ends it and waits, and
//     so does the journal's Close (after the feed delivered everything)
//     at the end of Supervisor.Close.
//
// # Events
//
// The journal numbers every event, keeps the newest (bounded in count and
// bytes) and publishes a *messages.Envelope on the actor system's event
// stream. Publishing runs event stream subscribers on the publishing
// actor's goroutine: they must only hand off (a panicking one is logged
// and contained). Follow is the gap-free way to follow events: feeds read
// the journal, so they never slow a publisher and never drop.
// Server events come from the reconciler, except server.log
// (ServerLogged), which a session's relay publishes from its notification
// goroutine.
//
// # Tracing
//
// With Options.TracerProvider set, each session's go-sdk client gets a
// sending middleware (tracing.go) that makes a client span per request
// and writes its trace context into the request's _meta, and the
// session's own HTTP transports add traceparent headers; each connect is
// a span of its lifeline. They run on the goroutines that send (the
// requests' callers, the lifeline) and start none. Without a provider none of it
// is installed.
package actors
