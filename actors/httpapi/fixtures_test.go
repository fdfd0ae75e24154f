package httpapi_test

import (
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

var t0 = time.Date(2026, 3, 1, 10, 2, 11, 0, time.UTC)

// sampleStatus has a server in each interesting state and a warning among
// the config errors.
func sampleStatus() messages.Status {
	return messages.Status{
		Generation: 3, ObservedGeneration: 3,
		Servers: []messages.ServerStatus{
			{
				Name: "alpha", Prefix: "alpha", Transport: messages.TransportStdio, State: messages.StateReady, PID: 41872, Session: 4,
				Tools: 7, Restarts: 1, Since: t0, Source: messages.Position{Path: "/home/me/.mcp.json", Line: 3, Column: 5},
				StderrTail: []string{"example-server alpha: pid 41872 starting"},
			},
			{
				Name: "beta", Prefix: "beta", Transport: messages.TransportHTTP, State: messages.StateFailed, Attempt: 2,
				LastError: "connect: Post \"https://api.example.com/[REDACTED]\": connection refused",
				NextRetry: t0.Add(4 * time.Second), Since: t0.Add(time.Second),
				Source: messages.Position{Path: "/home/me/.mcp.json", Line: 9, Column: 5},
			},
			{Name: "gamma", State: messages.StateInvalid, LastError: "env.TOKEN: ${TOKEN} is not set", Source: messages.Position{Path: "/home/me/.mcp.json", Line: 14, Column: 5}},
		},
		ConfigErrors: []messages.Diagnostic{
			{Position: messages.Position{Path: "/home/me/.mcp.json", Line: 14, Column: 5}, Severity: messages.SeverityError, Message: "env.TOKEN: ${TOKEN} is not set"},
			{Position: messages.Position{Path: "/home/me/.mcp.json", Line: 16, Column: 7}, Severity: messages.SeverityWarning, Message: "unknown field \"autoApprove\" ignored"},
		},
	}
}

func sampleTools() []messages.Tool {
	return []messages.Tool{
		{Server: "alpha", Prefix: "alpha", Name: "echo", Description: "Returns the message unchanged.", Hash: "h1",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}}},
		{Server: "alpha", Prefix: "alpha", Name: "pid", Description: "Returns the server's process id.", Hash: "h2", InputSchema: map[string]any{"type": "object"}},
		{Server: "beta", Prefix: "beta", Name: "tool__with__underscores", Hash: "h3", InputSchema: map[string]any{"type": "object"},
			OutputSchema: map[string]any{"type": "object"}},
	}
}
