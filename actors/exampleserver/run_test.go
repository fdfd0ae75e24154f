package exampleserver_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
)

// Run is Serve on stdin and stdout: the features and the --update-every
// ticker come with it, and it returns when stdin closes.
func TestRun_ServesTheFeaturesOnStdio(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	ticker := clock.Trap().TickerFunc("exampleserver", "resource-updates")
	defer ticker.Close()

	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	var stderr strings.Builder
	ran := make(chan error, 1)
	o := exampleserver.Options{Name: "stdio", Prompts: true, Resources: true, Completion: true, TwoWay: true, UpdateEvery: time.Second, Clock: clock}
	go func() {
		err := exampleserver.Run(ctx, o, stdinR, stdoutW, &stderr)
		_ = stdoutW.Close()
		ran <- err
	}()
	ticker.MustWait(ctx).MustRelease(ctx)

	got, copts := updates()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, copts).
		Connect(ctx, &mcp.IOTransport{Reader: stdoutR, Writer: stdinW}, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	caps := cs.InitializeResult().Capabilities
	if caps.Prompts == nil || caps.Resources == nil || caps.Completions == nil {
		t.Fatalf("capabilities over stdio: %+v", caps)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "example://counter"}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	_, w := clock.AdvanceNext()
	w.MustWait(ctx)
	if uri := receive(t, ctx, got, "resources/updated"); uri != "example://counter" {
		t.Fatalf("update for %s", uri)
	}

	_ = cs.Close() // closes the server's stdin
	if err := receive(t, ctx, ran, "end of Run"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !strings.Contains(stderr.String(), "example-server stdio: pid ") {
		t.Fatalf("stderr: %q", stderr.String())
	}
}
