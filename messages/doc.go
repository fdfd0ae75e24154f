// Package messages is mcpvisor's protocol: the commands actors send each
// other, the events they publish, the status snapshot and ServerSpec. It is
// plain data: no channels, funcs, mutexes, loggers or clocks. Every message
// is sent as a pointer to a struct that nobody mutates after sending.
// Commands are imperative (ResyncRequested), events past tense
// (ServerStateChanged, PlanApplied).
//
// # Commands
//
//	message          sender                              receiver         effect
//	FileChanged      watcher actor (tests, embedders)    config actor     re-read every config file
//	ResyncRequested  Supervisor.Resync, API, tests       config actor     re-read, then (as Resync) retry every failed server now
//	DesiredState     config actor                        fleet actor      plan and apply
//	Resync           config actor                        fleet actor      after the DesiredState its read produced, if any: retry every
//	                                                                      failed server now (a dry run only plans, against Preview)
//	ServerFailed     session actor (tests)               fleet actor      mark failed, back off, retry
//	ResyncPlanned    fleet actor                         whoever registered the resync's ID (Supervisor.Resync)
//	ResyncCompleted  fleet actor                         whoever registered the resync's ID (also published)
//
// Replies are matched by correlation id, never addressed: the fleet actor
// keeps, for each resync id a caller registered, where its answers go.
//
// # Events
//
// Every event is wrapped in an Envelope with a sequence number in one total
// order and published on the actor system's event stream by the event
// journal; docs/events.md is the catalogue.
//
//	event               published by     when
//	ConfigLoaded        config actor     after every read of the config files, with diagnostics
//	PlanComputed        fleet actor      after diffing a desired state against the live servers
//	PlanApplied         fleet actor      after carrying out every step of a plan
//	ServerStateChanged  fleet actor      on every server state transition
//	ToolsChanged        fleet actor      when a server's exposed tools change
//	PromptsChanged      fleet actor      when a server's prompts change (one event per server and kind,
//	ResourcesChanged                     with the full list and the keys added, removed and changed)
//	ResourceTemplatesChanged
//	ResourceUpdated     fleet actor      when a subscribed resource's server says it was updated
//	CatalogConflict     fleet actor      when two servers claim one resource URI or URI template
//	CatalogItemSkipped  fleet actor      when a listed item was too large to expose
//	ResyncCompleted     fleet actor      when every server a resync started has settled
//	WatcherDegraded     watcher actor    when file watching falls back to polling or could not start
//	                    root actor       when the watcher actor failed and was rebuilt
//	SupervisorFailed    root actor       when a core actor failed and the Supervisor ended (Done, Err)
//	ServerLogged        session relay    a server's notifications/message, redacted, rate-limited per session
//
// A feed (Supervisor.Follow) may also deliver a FeedTruncated, in an
// Envelope with Seq 0, where the journal no longer kept events the reader
// had not read; it is never published.
//
// Session actors never publish state: they report to the fleet actor, which
// is the single publisher of server state events, so their order is the
// order in which the fleet actor saw them. The one exception is a server's
// own log messages (ServerLogged), which belong to no state and are
// published by the session's relay as they arrive.
//
// Progress (messages.Progress) is not an event: it goes to the callback of
// the call it belongs to (actors.WithProgress).
package messages
