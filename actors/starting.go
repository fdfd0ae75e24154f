package actors

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/fleet"
	"github.com/mcpvisor/mcpvisor/actors/journal"
)

// Requests that come early. A client that connects while the fleet starts
// (a one-shot client: the MCP Inspector's CLI, an SDK script) calls a
// tool, gets a prompt or reads a resource of a server that is not up yet:
// connecting, waiting for a connect slot, listed from the catalog cache,
// or a lazy server listing its catalog for the first time. Such a request
// waits for that server as a lazy server's first use does (fleet.Tree.Use:
// the fleet actor answers once the server is ready, or refuses it with its
// failure), at most the longer of the server's connect and call timeouts
// and never past the request's context, then routes again and runs. A
// name or URI that no server provides is unknown only once no server
// whose catalog nobody knows is still starting: until then it waits for
// those (a failure among them is no answer, the name may be another's).

// routeWhenUp routes a request by route on the fleet's snapshot. When it
// reaches a server that is starting, it waits for that server; when it
// reaches none (unknown), it waits for the starting servers that may
// provide it (candidates), if any; then it routes again on the snapshot of
// then. An error of the wait for the server it reached (its failure, the
// bound, the request's end) is the answer.
func routeWhenUp[T any](ctx context.Context, s *Supervisor, route func(*fleet.Snapshot) (*fleet.Row, T, error), candidates func(*fleet.Snapshot) []*fleet.Row) (*fleet.Row, T, error) {
	if err := s.awaitDesired(ctx); err != nil {
		var zero T
		return nil, zero, err
	}
	snap := s.tree.Snapshot()
	row, item, err := route(snap)
	switch {
	case err == nil && row.Starting():
		if err := s.awaitUp(ctx, row); err != nil {
			var zero T
			return nil, zero, err
		}
	case isUnknown(err):
		rows := candidates(snap)
		if len(rows) == 0 {
			return row, item, err
		}
		if failed, err := s.awaitAll(ctx, rows); err != nil {
			var zero T
			return nil, zero, err
		} else if row, item, err := route(s.tree.Snapshot()); isUnknown(err) && failed != "" {
			return row, item, fmt.Errorf("%w (%s)", err, failed)
		} else {
			return row, item, err
		}
	default:
		return row, item, err
	}
	return route(s.tree.Snapshot())
}

// isUnknown reports whether routing found no server for an item.
func isUnknown(err error) bool {
	return errors.Is(err, ErrUnknownTool) || errors.Is(err, ErrUnknownPrompt) || errors.Is(err, ErrUnknownResource)
}

// StartError is the answer to a request that waited for a server to
// start, which did not: it failed, needs authorization, or was not up
// within the wait. It wraps ErrNotReady.
type StartError struct {
	Server string
	// Reason says why, as the server's status does (its last error).
	Reason string
	err    error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("server %q did not start: %s", e.Server, e.Reason)
}

func (e *StartError) Unwrap() error { return e.err }

// awaitUp waits until row's server is ready (the fleet actor's grant),
// holding it no longer than that: the request that waited takes it again
// on its own (a lazy server's idle timer starts from the later release).
// When the server does not come up, the error is a *StartError saying
// why; the request's end and the Supervisor's are theirs.
func (s *Supervisor) awaitUp(ctx context.Context, row *fleet.Row) error {
	s.opts.Logger.Debug("request waits for its server to start", zap.String("server", row.Status.Name), zap.String("state", string(row.Status.State)))
	_, release, err := s.tree.Use(ctx, row)
	if err == nil {
		release()
		return nil
	}
	if err = s.replyErr(err); errors.Is(err, ErrCanceled) || !errors.Is(err, ErrNotReady) || s.Err() != nil {
		return err
	}
	return &StartError{Server: row.Status.Name, Reason: notUpReason(s.tree.Snapshot(), row), err: err}
}

// notUpReason says why the server of row (as it was when the wait began)
// is not up now, from its row in snap: the fleet answers a wait only after
// it has published the state that ended it.
func notUpReason(snap *fleet.Snapshot, row *fleet.Row) string {
	now, ok := snap.Row(row.Status.Name)
	if !ok {
		return "it left the configuration"
	}
	reason := string(now.Status.State)
	if now.Starting() {
		reason = fmt.Sprintf("still %s after %s (the longer of its connect and call timeouts)", now.Status.State, max(row.ConnectTimeout, row.CallTimeout))
	}
	if now.Status.LastError != "" {
		reason += ": " + now.Status.LastError
	}
	return reason
}

// awaitAll waits for each of rows to be up or to fail. Failures are no
// error (the item may be another's), but are returned as text for an
// "unknown" answer; the request's end and the Supervisor's are errors.
func (s *Supervisor) awaitAll(ctx context.Context, rows []*fleet.Row) (failed string, err error) {
	var failures []string
	for _, row := range rows {
		err := s.awaitUp(ctx, row)
		switch {
		case err == nil:
		case errors.Is(err, ErrCanceled), s.Err() != nil:
			return "", s.replyErr(err)
		default:
			failures = append(failures, err.Error())
		}
	}
	return strings.Join(failures, "; "), nil
}

// awaitDesired waits, for a request that comes before the fleet has
// applied its first desired state (a client that connects as the gateway
// starts may ask before the config files are read), until it has, by the
// fleet's events: at most the longer of the default connect and call
// timeouts, never past the request's context.
func (s *Supervisor) awaitDesired(ctx context.Context) error {
	if s.tree.Snapshot().Applied() {
		return nil
	}
	feed := s.Follow(journal.Live, 16)
	defer feed.Close()
	wait := max(s.opts.ConnectTimeout, s.opts.CallTimeout)
	bound := s.opts.Clock.NewTimer(wait, "supervisor", "config-wait")
	defer bound.Stop("supervisor", "config-wait")
	for !s.tree.Snapshot().Applied() { // checked again once following: no event is missed
		select {
		case _, ok := <-feed.C:
			if !ok {
				return s.closedErr()
			}
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrCanceled, ctx.Err())
		case <-s.Done():
			return s.closedErr()
		case <-bound.C:
			return fmt.Errorf("%w: the configuration was not applied within %s", ErrNotReady, wait)
		}
	}
	return nil
}

// closedErr is the error of a Supervisor that has ended.
func (s *Supervisor) closedErr() error {
	if err := s.Err(); err != nil {
		return err
	}
	return ErrClosed
}
