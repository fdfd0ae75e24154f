package gateway_test

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Two servers offer one bare tool name; the mounted gateway serves the
// one from the config file that comes first in the Supervisor's order,
// though its path sorts last: Mount ranks by the Supervisor's config
// files without being told them.
func TestMount_RanksClaimsByTheSupervisorsConfigOrder(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	project := writeConfig(t, filepath.Join(dir, "z-project"), `{"mcpServers": {"zeta": {"command": "s"}}}`)
	home := writeConfig(t, filepath.Join(dir, "a-home"), `{"mcpServers": {"alpha": {"command": "s"}}}`)
	sup := startSupervisor(t, project, home)
	gw := gateway.Mount(sup, gateway.MountOptions{Names: gateway.NamesBare, StartupWait: time.Minute}) // the first list waits for both
	t.Cleanup(gw.Close)

	c := connectMounted(t, ctx, gw)
	c.waitTools(ctx, "whoami")
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "zeta" {
		t.Fatalf("whoami answered by %q, want zeta (declared in the first config file)", got)
	}
}

// Serving a mounted gateway ends once its Supervisor ends, without the
// caller's context ending; Close then returns, and again.
func TestMount_ServingEndsWithTheSupervisor(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := writeConfig(t, t.TempDir(), `{"mcpServers": {"alpha": {"command": "s"}}}`)
	sup := startSupervisor(t, cfg)
	gw := gateway.Mount(sup, gateway.MountOptions{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	served := make(chan error, 1)
	go func() {
		served <- gw.ServeStdio(ctx, inR, outW)
		_ = outW.Close()
	}()
	go func() { _, _ = io.Copy(io.Discard, outR) }()

	_ = sup.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("ServeStdio = %v, want nil once the Supervisor ended", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeStdio still serving after the Supervisor ended")
	}
	gw.Close()
	gw.Close()
}

// Serving streamable HTTP ends with the Supervisor too.
func TestMount_ListenerEndsWithTheSupervisor(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	sup := startSupervisor(t, writeConfig(t, t.TempDir(), `{"mcpServers": {"alpha": {"command": "s"}}}`))
	gw := gateway.Mount(sup, gateway.MountOptions{})
	t.Cleanup(gw.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- gw.ServeListener(ctx, ln, gateway.HTTPOptions{NoAuth: true}) }()

	_ = sup.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("ServeListener = %v, want nil once the Supervisor ended", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeListener still serving after the Supervisor ended")
	}
}

// Close stops a mounted gateway following a Supervisor that still runs,
// and returns.
func TestMount_CloseWhileTheSupervisorRuns(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	sup := startSupervisor(t, writeConfig(t, t.TempDir(), `{"mcpServers": {"alpha": {"command": "s"}}}`))
	gw := gateway.Mount(sup, gateway.MountOptions{})
	closed := make(chan struct{})
	go func() {
		gw.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close did not return while the Supervisor runs")
	}
	if err := sup.Err(); err != nil {
		t.Fatalf("the Supervisor ended with the gateway: %v", err)
	}
}

// connectMounted connects a client to a mounted gateway over stdio pipes.
func connectMounted(t *testing.T, ctx context.Context, gw *gateway.Gateway) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = gw.ServeStdio(serveCtx, inR, outW)
		_ = outW.Close()
	}()
	mc, c := newClient(t)
	cs, err := mc.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		stop()
		<-served
	})
	c.cs = cs
	c.awaitListening(ctx)
	return c
}

// startSupervisor starts a Supervisor on the config files given whose
// every server is whoamiServer, closed when the test ends.
func startSupervisor(t *testing.T, paths ...string) *actors.Supervisor {
	t.Helper()
	sup, err := actors.Start(actors.Options{ConfigPaths: paths, Dial: whoamiServer, DisableWatch: true, CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sup.Close() })
	return sup
}

// writeConfig writes a .mcp.json in dir and returns its path.
func writeConfig(t *testing.T, dir, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".mcp.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// whoamiServer is an in-memory MCP server with one tool, whoami, that
// answers its server's name.
func whoamiServer(spec messages.ServerSpec) (mcp.Transport, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: spec.Name, Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: spec.Name}}}, nil
		})
	serverSide, clientSide := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), serverSide, nil); err != nil {
		return nil, err
	}
	return clientSide, nil
}
