package actors

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpvisor/mcpvisor/actors/internal/fleet"
)

// What a caller changes in the running sessions: their log level, their
// roots, and the resources they are subscribed to upstream.

// SetLogLevel asks every server that logs for messages at level and above,
// now and after every connect; "" stops asking.
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

// RefreshRoots has the servers that take Options.Roots read them again.
func (s *Supervisor) RefreshRoots() {
	for _, row := range s.tree.Snapshot().Rows() {
		if row.Session != nil {
			row.Session.RefreshRoots()
		}
	}
}

// SubscribeResource subscribes to a resource's updates (ResourceUpdated
// events), once upstream per URI however many subscribe.
func (s *Supervisor) SubscribeResource(ctx context.Context, uri string) error {
	if err := s.Err(); err != nil {
		return err
	}
	// The owner, if it is starting, is waited for (fleet.RouteWhenUp); where the
	// URI routes then is the fleet actor's to say.
	if _, err := s.resourceRow(ctx, uri, func(snap *fleet.Snapshot) (*fleet.Row, bool) { return snap.ResourceOwner(uri) },
		func(snap *fleet.Snapshot) (*fleet.Row, bool) { return snap.CachedResourceOwner(uri) }); err != nil && !errors.Is(err, ErrUnknownResource) {
		return err
	}
	return s.tree.Subscribe(ctx, uri)
}

// UnsubscribeResource drops one subscription to uri.
func (s *Supervisor) UnsubscribeResource(uri string) { s.tree.Unsubscribe(uri) }
