package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// resync answers POST /api/v1/resync: re-read the config files and retry
// every failed server now. It returns the plan and, unless it is a dry
// run, the outcome per server and the status afterwards. The wait for the
// outcome is bounded by ResyncWait; when it runs out the answer is what is
// known then, with Complete false and a note.
func (s *Server) resync(w http.ResponseWriter, r *http.Request) {
	var req ResyncRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeRequestError(w, err)
		return
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	timer := s.clock.AfterFunc(s.opts.ResyncWait, func() { cancel(errResyncWait) }, "httpapi", "resync")
	defer timer.Stop("httpapi", "resync")

	planned, done, err := s.fleet.Resync(ctx, req.DryRun)
	waitedOut := err != nil && errors.Is(context.Cause(ctx), errResyncWait)
	switch {
	case errors.Is(err, actors.ErrClosed):
		writeError(w, http.StatusServiceUnavailable, "the supervisor is shutting down")
		return
	case planned == nil && waitedOut:
		writeError(w, http.StatusGatewayTimeout, fmt.Sprintf("no plan within %s: the config files may be slow to read; try again", s.opts.ResyncWait))
		return
	case err != nil && !waitedOut:
		writeError(w, http.StatusServiceUnavailable, "resync: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.resyncResult(planned, done, req.DryRun))
}

// errResyncWait is the cause when the resync wait runs out.
var errResyncWait = errors.New("resync wait ran out")

func (s *Server) resyncResult(planned *messages.ResyncPlanned, done *messages.ResyncCompleted, dryRun bool) ResyncResult {
	if planned == nil {
		planned = &messages.ResyncPlanned{}
	}
	out := ResyncResult{
		ID: planned.ID, Generation: planned.Generation, DryRun: dryRun,
		Plan: planned.Steps, Outcomes: []messages.ServerOutcome{}, Complete: dryRun || done != nil,
	}
	if out.Plan == nil {
		out.Plan = []messages.PlanStep{}
	}
	if dryRun {
		return out
	}
	if done != nil {
		out.Outcomes = append(out.Outcomes, done.Outcomes...)
	} else {
		out.Note = fmt.Sprintf("not every server settled within %s; the status shows where they are now, and events will tell the rest", s.opts.ResyncWait)
	}
	st := normalStatus(s.fleet.Status())
	out.Status = &st
	return out
}
