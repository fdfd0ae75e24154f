//lint:file-ignore SA1019 sampling and roots are deprecated from protocol 2026-07-28 on (SEP-2577) but are what the rig's relay tells servers.

package gateway_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/messages"
)

// relayRig is the whole two-way path in memory: a Supervisor whose one
// server, "demo", is the example server with its two-way tools (a fresh
// one per dial), the gateway over it with the relay installed, and
// clients of the gateway.
type relayRig struct {
	t      testing.TB
	sup    *actors.Supervisor
	gw     *gateway.Gateway
	rec    *actorstest.Recorder
	config string
}

// startRelayRig starts the rig; extra are more config fields of "demo".
func startRelayRig(t testing.TB, ctx context.Context, extra map[string]any, mk func() *mcp.Server) *relayRig {
	t.Helper()
	if mk == nil {
		mk = func() *mcp.Server { return exampleserver.New(exampleserver.Options{Name: "example", TwoWay: true}) }
	}
	return startRelayRigDial(t, ctx, extra, dialServer(mk))
}

// dialServer dials a fresh server made by mk, in memory.
func dialServer(mk func() *mcp.Server) func(messages.ServerSpec) (mcp.Transport, error) {
	return func(messages.ServerSpec) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := mk().Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
}

// startRelayRigDial starts the rig with "demo" dialled by dial, and a
// relay that tells a server connecting before any client everything
// (Relay.Default), as a gateway configured for clients that have it all.
func startRelayRigDial(t testing.TB, ctx context.Context, extra map[string]any, dial func(messages.ServerSpec) (mcp.Transport, error)) *relayRig {
	t.Helper()
	return startRelayRigOver(t, ctx, extra, dial, &gateway.Relay{Default: everything()})
}

// everything is every client capability the relay deals in.
func everything() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{
		Sampling:    &mcp.SamplingCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		RootsV2:     &mcp.RootCapabilities{ListChanged: true},
	}
}

// startRelayRigOver starts the rig with "demo" dialled by dial, and relay.
func startRelayRigOver(t testing.TB, ctx context.Context, extra map[string]any, dial func(messages.ServerSpec) (mcp.Transport, error), relay *gateway.Relay) *relayRig {
	t.Helper()
	r := &relayRig{t: t, config: filepath.Join(t.TempDir(), "mcp.json")}
	r.writeConfig(extra)
	logger := zaptest.NewLogger(t)
	if _, bench := t.(*testing.B); bench {
		logger = zap.NewNop() // logging every notification would be what is measured
	}
	opts := actors.Options{
		ConfigPaths: []string{r.config}, DisableWatch: true, ProbeInterval: -1,
		Clock: quartz.NewMock(t), Logger: logger, Dial: dial,
	}
	relay.Install(&opts)
	sup, err := actors.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.sup, r.rec = sup, actorstest.Record(t, sup)
	r.gw = gateway.Mount(sup, gateway.MountOptions{Logger: logger, Relay: relay})
	t.Cleanup(func() {
		r.gw.Close()
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	// The server connects before any client, as a starting gateway's do:
	// it is told the relay's Default, so every client sees the same tools,
	// whenever it connects.
	r.rec.WaitState(ctx, 0, "demo", messages.StateReady)
	return r
}

func (r *relayRig) writeConfig(extra map[string]any) {
	r.t.Helper()
	entry := map[string]any{"command": "in-memory"}
	for k, v := range extra {
		entry[k] = v
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"demo": entry}})
	if err := os.WriteFile(r.config, data, 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// connect connects a gateway client with these options, speaking pin
// ("" for the default protocol), and waits until it sees want.
func (r *relayRig) connect(ctx context.Context, pin string, o *mcp.ClientOptions, want ...string) *mcp.ClientSession {
	r.t.Helper()
	changed := make(chan struct{}, 64)
	o.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	return r.connectClient(ctx, pin, mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, o), changed, want...)
}

// connectClient connects c, whose tool list-changed handler signals
// changed, and waits until it sees want.
func (r *relayRig) connectClient(ctx context.Context, pin string, c *mcp.Client, changed <-chan struct{}, want ...string) *mcp.ClientSession {
	r.t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := r.gw.Server().Connect(ctx, st, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	for {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			r.t.Fatal(err)
		}
		var got []string
		for _, tool := range res.Tools {
			got = append(got, tool.Name)
		}
		slices.Sort(got)
		if slices.Equal(got, want) {
			return cs
		}
		select {
		case <-changed:
		case <-ctx.Done():
			r.t.Fatalf("tools never became %v: %v", want, got)
		}
	}
}

// call calls a tool through the gateway and returns its text.
func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, p *mcp.CallToolParams) string {
	t.Helper()
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("call %s: %v", p.Name, err)
	}
	return text(t, res)
}

// demoTools are the gateway's tools for a client of the rig: the example
// server's, including sample, elicit and roots, since the session
// advertises what the relay installs (sampling, elicitation, roots).
func demoTools() []string {
	return []string{"demo__add", "demo__crash", "demo__echo", "demo__elicit", "demo__fail", "demo__getenv",
		"demo__log", "demo__pid", "demo__progress", "demo__roots", "demo__sample", "demo__sleep"}
}
