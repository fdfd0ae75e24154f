package httpapi

import (
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
)

// CallOutcome is how a tool call ended, the outcome label of
// mcpvisor_tool_calls_total.
type CallOutcome string

// The call outcomes.
const (
	OutcomeOK            CallOutcome = "ok"
	OutcomeToolError     CallOutcome = "tool_error" // the tool ran and reported isError
	OutcomeBadName       CallOutcome = "bad_name"
	OutcomeUnknownServer CallOutcome = "unknown_server"
	OutcomeUnknownTool   CallOutcome = "unknown_tool"
	OutcomeNotReady      CallOutcome = "not_ready"
	OutcomeUpstream      CallOutcome = "upstream_error"
	OutcomeTimeout       CallOutcome = "timeout"
	OutcomeCanceled      CallOutcome = "canceled"
	OutcomeClosed        CallOutcome = "closed"
	OutcomeFailed        CallOutcome = "failed" // the supervisor failed
	OutcomeError         CallOutcome = "error"  // anything else
)

// callErrors maps the supervisor's call errors, in the order they are
// tested, to an outcome and an HTTP status.
var callErrors = []struct {
	err     error
	outcome CallOutcome
	status  int
}{
	{actors.ErrBadToolName, OutcomeBadName, http.StatusBadRequest},
	{actors.ErrUnknownServer, OutcomeUnknownServer, http.StatusNotFound},
	{actors.ErrUnknownTool, OutcomeUnknownTool, http.StatusNotFound},
	{actors.ErrClosed, OutcomeClosed, http.StatusServiceUnavailable},
	{actors.ErrFailed, OutcomeFailed, http.StatusServiceUnavailable},
	{actors.ErrCanceled, OutcomeCanceled, http.StatusServiceUnavailable},
	{actors.ErrNotReady, OutcomeNotReady, http.StatusServiceUnavailable},
	{actors.ErrCallTimeout, OutcomeTimeout, http.StatusGatewayTimeout},
	{actors.ErrUpstream, OutcomeUpstream, http.StatusBadGateway},
}

// ClassifyCall names the outcome of a Supervisor.CallTool.
func ClassifyCall(res *mcp.CallToolResult, err error) CallOutcome {
	if err == nil {
		if res != nil && res.IsError {
			return OutcomeToolError
		}
		return OutcomeOK
	}
	for _, e := range callErrors {
		if errors.Is(err, e.err) {
			return e.outcome
		}
	}
	return OutcomeError
}

// callStatus is the HTTP status for a failed call.
func callStatus(err error) int {
	for _, e := range callErrors {
		if errors.Is(err, e.err) {
			return e.status
		}
	}
	return http.StatusInternalServerError
}
