package actors

import (
	"context"
	"fmt"
)

// What a caller changes in the running sessions: their log level, their
// roots, and the resources they are subscribed to upstream.

// SetLogLevel asks every upstream server that supports logging to send
// its log messages at level (debug ... emergency) and above, now and on
// every later connect; "" stops asking (servers keep the level they
// were given last). Servers on protocol 2026-07-28 have no
// logging/setLevel: they get the level with each call instead (see
// WithLogLevel). It returns once every ready server answered, or ctx
// ended: a call made after it gets messages at that level.
func (s *Supervisor) SetLogLevel(ctx context.Context, level string) error {
	if level != "" && !validLogLevel(level) {
		return fmt.Errorf("log level %q: use one of debug, info, notice, warning, error, critical, alert, emergency", level)
	}
	s.logLevel.Store(&level)
	rows := s.tree.Snapshot().Rows()
	done := make(chan struct{}, len(rows))
	asked := 0
	for _, row := range rows {
		if row.Session != nil {
			row.Session.SetLogLevel(level, done)
			asked++
		}
	}
	for range asked {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.Done():
			return s.Err()
		}
	}
	return nil
}

func validLogLevel(level string) bool {
	switch level {
	case "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency":
		return true
	}
	return false
}

// RefreshRoots makes every server that takes its roots from Options.Roots
// read them again; changed roots are announced to the servers.
func (s *Supervisor) RefreshRoots() {
	for _, row := range s.tree.Snapshot().Rows() {
		if row.Session != nil {
			row.Session.RefreshRoots()
		}
	}
}

// SubscribeResource subscribes to updates of a resource: the owning
// server's notifications/resources/updated for uri are published as
// messages.ResourceUpdated events. Subscriptions are counted per URI:
// mcpvisor subscribes upstream once, on the first, and again whenever the
// owning server's session is replaced or restarts, until the last
// UnsubscribeResource. It returns once the upstream subscription is
// acknowledged, or with an error (and no subscription counted).
func (s *Supervisor) SubscribeResource(ctx context.Context, uri string) error {
	if err := s.Err(); err != nil {
		return err
	}
	return s.tree.Subscribe(ctx, uri)
}

// UnsubscribeResource drops one subscription to uri; the upstream one ends
// with the last. Unsubscribing a URI not subscribed to is a no-op.
func (s *Supervisor) UnsubscribeResource(uri string) { s.tree.Unsubscribe(uri) }
