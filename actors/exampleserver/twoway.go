//lint:file-ignore SA1019 logging is deprecated from protocol 2026-07-28 on (SEP-2577) but is what these tools exist to exercise.

package exampleserver

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logLevels are MCP's log levels, least severe first.
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

type progressIn struct {
	Steps     int `json:"steps" jsonschema:"how many notifications/progress to send"`
	PerSecond int `json:"perSecond,omitempty" jsonschema:"send at most this many a second (default: as fast as the client reads them)"`
}

type logIn struct {
	Message string `json:"message" jsonschema:"the text of each log message"`
	Level   string `json:"level,omitempty" jsonschema:"send one message at this level (debug ... emergency); default: one at every level"`
}

// advertiseLogging adds the logging capability: clients send
// logging/setLevel only to servers that have it.
func advertiseLogging(caps *mcp.ServerCapabilities) {
	caps.Logging = &mcp.LoggingCapabilities{}
}

// addTwoWayTools adds progress and log: tools that send notifications to
// the client during the call.
func addTwoWayTools(srv *mcp.Server, name string, clock quartz.Clock) {
	mcp.AddTool(srv, &mcp.Tool{Name: "progress", Description: "Sends N notifications/progress (when the call has a progressToken), then answers."},
		func(ctx context.Context, req *mcp.CallToolRequest, in progressIn) (*mcp.CallToolResult, any, error) {
			return progress(ctx, req, in, clock)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "log", Description: "Sends notifications/message at one level or at every level; the client's logging/setLevel filters them."},
		func(ctx context.Context, req *mcp.CallToolRequest, in logIn) (*mcp.CallToolResult, any, error) {
			return logMessages(ctx, req, in, name)
		})
}

// progress reports steps 1..N of N, in order, before it answers, paced
// by a ticker on clock if the call asked for a rate; without a
// progressToken it sends nothing.
func progress(ctx context.Context, req *mcp.CallToolRequest, in progressIn, clock quartz.Clock) (*mcp.CallToolResult, any, error) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return text("sent 0 progress notifications (the call had no progressToken)"), nil, nil
	}
	var pace <-chan time.Time
	if in.PerSecond > 0 {
		ticker := clock.NewTicker(time.Second/time.Duration(in.PerSecond), "exampleserver", "progress")
		defer ticker.Stop()
		pace = ticker.C
	}
	for i := 1; i <= in.Steps; i++ {
		if pace != nil {
			select {
			case <-pace:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		}
		p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d of %d", i, in.Steps)}
		if err := req.Session.NotifyProgress(ctx, p); err != nil {
			return nil, nil, fmt.Errorf("progress %d: %w", i, err)
		}
	}
	return text(fmt.Sprintf("sent %d progress notifications", in.Steps)), nil, nil
}

// logMessages sends the message at the asked level, or at every level;
// the go-sdk drops those below the level the client set (none at all
// before it set one).
func logMessages(ctx context.Context, req *mcp.CallToolRequest, in logIn, logger string) (*mcp.CallToolResult, any, error) {
	levels := logLevels
	if in.Level != "" {
		levels = []mcp.LoggingLevel{mcp.LoggingLevel(in.Level)}
		if !slices.Contains(logLevels, levels[0]) {
			return nil, nil, fmt.Errorf("level %q: use one of %v", in.Level, logLevels)
		}
	}
	for _, level := range levels {
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: logger, Data: in.Message}); err != nil {
			return nil, nil, fmt.Errorf("log at %s: %w", level, err)
		}
	}
	return text(fmt.Sprintf("logged at %d levels", len(levels))), nil, nil
}
