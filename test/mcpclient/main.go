// Command mcpclient runs mcpvisor's own session code as an MCP client
// against one server, for the official conformance suite's client
// scenarios: the suite starts it as `mcpclient URL` with
// MCP_CONFORMANCE_SCENARIO naming the scenario. It supervises a one-server
// config (the URL, streamable HTTP) with an actors.Supervisor, waits for
// the server to be ready, makes the scenario's call through
// Supervisor.CallTool and exits 0 only if all of that worked. Elicitation
// requests reach Options.Elicitation as the server sent them; the handler
// plays a user who accepts every default the requested schema offers
// (SEP-1034: a client pre-fills them).
//
// Logs go to stderr; the suite keeps them with its results. run.sh runs
// the scenarios.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// server is the config's name for the suite's server.
const server = "conformance"

// scenarioCalls maps each scenario to the tool it calls once the server is
// ready ("" for none) and its arguments.
var scenarioCalls = map[string]struct {
	tool string
	args map[string]any
}{
	"initialize":                          {},
	"tools_call":                          {"add_numbers", map[string]any{"a": 5, "b": 3}},
	"elicitation-sep1034-client-defaults": {"test_client_elicitation_defaults", map[string]any{}},
	"sse-retry":                           {"test_reconnection", map[string]any{}},
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpclient:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) < 2 {
		return errors.New("usage: MCP_CONFORMANCE_SCENARIO=S mcpclient URL")
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	call, ok := scenarioCalls[scenario]
	if !ok {
		return fmt.Errorf("scenario %q is not one this driver knows", scenario)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	dir, err := os.MkdirTemp("", "mcpclient-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `{"mcpServers": {%q: {"type": "http", "url": %q}}}`, server, url), 0o600); err != nil {
		return err
	}
	log, err := zap.NewDevelopment() // to stderr
	if err != nil {
		return err
	}
	sup, err := actors.Start(actors.Options{
		ConfigPaths:  []string{cfg},
		WorkDir:      dir,
		DisableWatch: true,
		Logger:       log,
		Elicitation: func(_ context.Context, _ string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: schemaDefaults(p.RequestedSchema)}, nil
		},
	})
	if err != nil {
		return err
	}
	defer func() { _ = sup.Close() }()
	if err := waitReady(ctx, sup); err != nil {
		return err
	}
	if call.tool == "" {
		return nil
	}
	res, err := sup.CallTool(ctx, actors.QualifiedName(server, call.tool), call.args)
	if err != nil {
		return fmt.Errorf("call %s: %w", call.tool, err)
	}
	if res.IsError {
		return fmt.Errorf("call %s: the server answered with an error: %+v", call.tool, res.Content)
	}
	return nil
}

// schemaDefaults is the default of every property of an elicitation's
// requested schema (a flat object schema, as elicitation allows).
func schemaDefaults(schema any) map[string]any {
	out := map[string]any{}
	raw, err := json.Marshal(schema)
	if err != nil {
		return out
	}
	var s struct {
		Properties map[string]struct {
			Default any `json:"default"`
		} `json:"properties"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return out
	}
	for name, prop := range s.Properties {
		if prop.Default != nil {
			out[name] = prop.Default
		}
	}
	return out
}

// waitReady waits, event by event, until the server is ready; its failure
// (mcpvisor would retry it) ends the run.
func waitReady(ctx context.Context, sup *actors.Supervisor) error {
	feed := sup.Follow(journal.Live, 1024)
	defer feed.Close()
	for {
		for _, s := range sup.Status().Servers {
			switch s.State {
			case messages.StateReady:
				return nil
			case messages.StateFailed, messages.StateInvalid:
				return fmt.Errorf("server %s: %s", s.State, s.LastError)
			}
		}
		select {
		case <-feed.C:
		case <-ctx.Done():
			return fmt.Errorf("server not ready: %w", ctx.Err())
		}
	}
}
