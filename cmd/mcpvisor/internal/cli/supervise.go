package cli

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/keeper"
)

// What run and serve share: both supervise servers in-process, with a
// logger on stderr and, when the environment asks for it, a tracer.

// prelude opens the logger and the tracer of a supervising command;
// done flushes both (after the Supervisor closed: its last spans have
// ended). A code other than ExitOK says they could not be opened, and
// why was printed.
func prelude(ctx context.Context, command string, f configFlags, io IO) (log *zap.Logger, tp trace.TracerProvider, done func(), code int) {
	log, err := newLogger(io.Stderr, f.logLevel, f.logFormat)
	if err != nil {
		return nil, nil, nil, usageError(io, command, err)
	}
	tp, flushTraces, err := startTracing(ctx, command, io)
	if err != nil {
		_ = log.Sync()
		return nil, nil, nil, usageError(io, command, err)
	}
	return log, tp, func() {
		flushTraces()
		_ = log.Sync()
	}, ExitOK
}

// startKeeper starts the keeper of a supervising command's servers and
// hands it their process groups (opts.ProcessGroups), so that they die
// with the command even if it is killed (package keeper). Without one (no
// executable, or it failed to start, which is said) a SIGKILL of the
// command still kills each server on Linux, by its parent-death signal,
// but not what the server started. stop ends the keeper once the
// Supervisor has closed.
func startKeeper(command string, opts *actors.Options, io IO) (stop func()) {
	if io.Executable == "" {
		return func() {}
	}
	k, err := keeper.Start(io.Executable)
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor %s: warning: %v; if mcpvisor is killed, what its servers started may outlive it\n", command, err)
		return func() {}
	}
	opts.ProcessGroups = k.Track
	return func() {
		if err := k.Close(); err != nil {
			fmt.Fprintf(io.Stderr, "mcpvisor %s: warning: %v\n", command, err)
		}
	}
}

// usageError prints err as a command's usage error.
func usageError(io IO, command string, err error) int {
	fmt.Fprintf(io.Stderr, "mcpvisor %s: %v\n", command, err)
	return ExitUsage
}

// finalCode prints each error that ended a supervising command, one line
// each, and is the exit code they make. failed, a supervisor's failure,
// is the one line to say when there is one: the errors of serving and
// stopping that it caused would only repeat it.
func finalCode(io IO, command string, failed error, errs ...error) int {
	if failed != nil {
		errs = []error{failed}
	}
	code := ExitOK
	for _, err := range errs {
		if err != nil {
			fmt.Fprintf(io.Stderr, "mcpvisor %s: %v\n", command, err)
			code = ExitFailed
		}
	}
	return code
}
