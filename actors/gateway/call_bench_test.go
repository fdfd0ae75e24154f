package gateway_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/messages"
)

// BenchmarkGateway_CallInMemory calls the example server's echo, in
// memory, directly (a go-sdk client connected to the server) and through
// the gateway (a go-sdk client of the gateway, its session, the
// Supervisor, the session actor, the upstream go-sdk client): the
// difference is what the gateway adds to a call beside the transports.
// cpu-ns/op is the process's CPU time per call (both ends included).
//
//	go test -run '^$' -bench Gateway_CallInMemory -benchmem -count 6 ./actors/gateway/
func BenchmarkGateway_CallInMemory(b *testing.B) {
	args := map[string]any{"message": "hello"}
	call := func(b *testing.B, cs *mcp.ClientSession, name string) {
		ctx := context.Background()
		p := &mcp.CallToolParams{Name: name, Arguments: args}
		b.ReportAllocs()
		defer actorstest.CPUPerOp(b)()
		for b.Loop() {
			if _, err := cs.CallTool(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("direct", func(b *testing.B) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := exampleserver.New(exampleserver.Options{Name: "example", TwoWay: true}).Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		call(b, cs, "echo")
	})
	b.Run("gateway", func(b *testing.B) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		_, cs := realGateway(b, ctx)
		call(b, cs, "demo__echo")
	})
}

// realGateway is the gateway's whole call path in memory on the real
// clock (the relay rig's mock clock costs a call more than the rest of
// mcpvisor does, and logs every timer): a Supervisor whose one server,
// "demo", is the example server, and the gateway over it, with one client
// connected once it lists demo__echo. Nothing waits on the clock but the
// bounds of the calls themselves.
func realGateway(b testing.TB, ctx context.Context) (*gateway.Gateway, *mcp.ClientSession) {
	b.Helper()
	config := filepath.Join(b.TempDir(), "mcp.json")
	if err := os.WriteFile(config, []byte(`{"mcpServers":{"demo":{"command":"in-memory"}}}`), 0o600); err != nil {
		b.Fatal(err)
	}
	opts := actors.Options{
		ConfigPaths: []string{config}, DisableWatch: true, ProbeInterval: -1, Logger: zap.NewNop(),
		Dial: func(messages.ServerSpec) (mcp.Transport, error) {
			st, ct := mcp.NewInMemoryTransports()
			if _, err := exampleserver.New(exampleserver.Options{Name: "example", TwoWay: true}).Connect(context.Background(), st, nil); err != nil {
				return nil, err
			}
			return ct, nil
		},
	}
	relay := &gateway.Relay{}
	relay.Install(&opts)
	sup, err := actors.Start(opts)
	if err != nil {
		b.Fatal(err)
	}
	gw := gateway.Mount(sup, gateway.MountOptions{Logger: zap.NewNop(), Relay: relay})
	b.Cleanup(func() {
		gw.Close()
		if err := sup.Close(); err != nil {
			b.Errorf("close: %v", err)
		}
	})
	changed := make(chan struct{}, 1)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := gw.Server().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	}).Connect(ctx, ct, nil)
	// (a client connecting later may miss that list_changed: Run may
	// have applied demo's tools before it connected)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	for {
		for tl, err := range cs.Tools(ctx, nil) {
			if err != nil {
				b.Fatal(err)
			}
			if tl.Name == "demo__echo" {
				return gw, cs
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			b.Fatal("the gateway never listed demo__echo")
		}
	}
}
