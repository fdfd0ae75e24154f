package session

import "github.com/mcpvisor/mcpvisor/messages"

// Reports from a session to its parent, the fleet actor. A failure is a
// *messages.ServerFailed.
type (
	// Ready says the session connected and listed its whole catalog.
	Ready struct {
		Server string
		ID     uint64
		PID    int
		Catalog
		// Transport is the transport that worked.
		Transport messages.Transport
		// Stderr returns the server's stderr tail, redacted, at the time of
		// the call (nil for HTTP servers); safe from any goroutine.
		Stderr func() []string
	}
	// Relisted reports a re-list after list_changed: the kinds of Catalog.
	Relisted struct {
		Server string
		ID     uint64
		Catalog
	}
	// Stopped says the session and its process are gone; the actor stops.
	Stopped struct {
		Server string
		ID     uint64
	}
	// ResourceUpdated is a notifications/resources/updated of a URI the
	// session subscribed to.
	ResourceUpdated struct {
		Server string
		ID     uint64
		URI    string
	}
	// Spawned says that the session's server process has started: PID
	// leads the server's process group (the connect sampler reads it).
	Spawned struct {
		ID  uint64
		PID int
	}
)
