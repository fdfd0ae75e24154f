package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/actors/internal/view"
)

// Requests that come early. A client that connects while the fleet starts
// (a one-shot client: the MCP Inspector's CLI, an SDK script) calls a
// tool, gets a prompt or reads a resource of a server that is not up yet:
// connecting, waiting for a connect slot, listed from the catalog cache,
// or a lazy server listing its catalog for the first time. Such a request
// waits for that server as a lazy server's first use does (Tree.Use: the
// fleet actor answers once the server is ready, or refuses it with its
// failure), at most the longer of the server's connect and call timeouts
// and never past the request's context, then routes again and runs. A
// name or URI that no server provides is unknown only once no server
// whose catalog nobody knows is still starting: until then it waits for
// those (a failure among them is no answer, the name may be another's).

// RouteWhenUp routes a request by route on t's snapshot. When it reaches
// a server that is starting, it waits for that server; when it reaches
// none (unknown), it waits for the starting servers that may provide it
// (candidates), if any; then it routes again on the snapshot of then. An
// error of the wait for the server it reached (its failure, the bound,
// the request's end) is the answer.
func RouteWhenUp[T any](ctx context.Context, t *Tree, route func(*Snapshot) (*Row, T, error), candidates func(*Snapshot) []*Row) (*Row, T, error) {
	var zero T
	snap := t.Snapshot()
	row, item, err := route(snap)
	switch {
	case err == nil && row.Starting():
		if err := t.awaitUp(ctx, row); err != nil {
			return nil, zero, err
		}
	case isUnknown(err):
		rows := candidates(snap)
		if len(rows) == 0 {
			return row, item, err
		}
		failed, err := t.awaitAll(ctx, rows)
		if err != nil {
			return nil, zero, err
		}
		row, item, err := route(t.Snapshot())
		if isUnknown(err) && failed != "" {
			err = fmt.Errorf("%w (%s)", err, failed)
		}
		return row, item, err
	default:
		return row, item, err
	}
	return route(t.Snapshot())
}

// isUnknown reports whether routing found no server for an item.
func isUnknown(err error) bool {
	return errors.Is(err, view.ErrUnknownTool) || errors.Is(err, view.ErrUnknownPrompt) || errors.Is(err, view.ErrUnknownResource)
}

// StartError is the answer to a request that waited for a server to
// start, which did not: it failed, needs authorization, or was not up
// within the wait. It wraps session.ErrNotReady.
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
// why; the request's end and a failed tree's are theirs.
func (t *Tree) awaitUp(ctx context.Context, row *Row) error {
	t.deps.Logger.Debug("request waits for its server to start", zap.String("server", row.Status.Name), zap.String("state", string(row.Status.State)))
	_, release, err := t.Use(ctx, row)
	if err == nil {
		release()
		return nil
	}
	if failed := t.Failed(); failed != nil {
		return failed
	}
	if errors.Is(err, session.ErrCanceled) || !errors.Is(err, session.ErrNotReady) || t.Err() != nil {
		return err
	}
	return &StartError{Server: row.Status.Name, Reason: notUpReason(t.Snapshot(), row), err: err}
}

// notUpReason says why the server of row (as it was when the wait began)
// is not up now, from its row in snap: the fleet answers a wait only after
// it has published the state that ended it.
func notUpReason(snap *Snapshot, row *Row) string {
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
// "unknown" answer; the request's end and the tree's are errors.
func (t *Tree) awaitAll(ctx context.Context, rows []*Row) (failed string, err error) {
	var failures []string
	for _, row := range rows {
		err := t.awaitUp(ctx, row)
		var start *StartError
		switch {
		case err == nil:
		case errors.As(err, &start):
			failures = append(failures, err.Error())
		default:
			return "", err
		}
	}
	return strings.Join(failures, "; "), nil
}
