package gateway_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/test/benchcpu"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
)

// BenchmarkRelay_Progress relays b.N notifications/progress of one call
// from an upstream server, through a session and the gateway, to a
// gateway client, all in this process and in memory. cpu-µs/notification
// is the process's CPU time (user + system, from getrusage) per relayed
// notification: the gateway's share plus the upstream server's and the
// client's, so an upper bound on what relaying costs the gateway.
// core-%-at-1000/s is that cost at 1,000 notifications a second, in
// percent of one core. It measures the go-sdk's in-memory transport flat
// out, not mcpvisor's stdio connection at a rate: the target's measure is
// test/gateway's BenchmarkServe_ProgressRelay.
func BenchmarkRelay_Progress(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r := startRelayRig(b, ctx, nil, nil)
	got := make(chan struct{}, 1)
	var n int
	want := b.N
	cs := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		n++
		if n == want {
			got <- struct{}{}
		}
	}}, demoTools()...)
	params := &mcp.CallToolParams{Name: "demo__progress", Arguments: map[string]any{"steps": b.N}}
	params.SetProgressToken("bench")
	before := benchcpu.Process()
	b.ResetTimer()
	if _, err := cs.CallTool(ctx, params); err != nil {
		b.Fatal(err)
	}
	select {
	case <-got:
	case <-ctx.Done():
		b.Fatalf("%d of %d notifications arrived", n, b.N)
	}
	b.StopTimer()
	perNote := float64((benchcpu.Process() - before).Microseconds()) / float64(b.N)
	b.ReportMetric(perNote, "cpu-µs/notification")
	b.ReportMetric(perNote*1000/1e6*100, "core-%-at-1000/s")
}

// BenchmarkRelay_ProgressDirect is the baseline: the same upstream server
// and the same call, its notifications read by a go-sdk client connected
// to it directly. The gateway's own cost per notification is
// BenchmarkRelay_Progress's less this one's.
func BenchmarkRelay_ProgressDirect(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := exampleserver.New(exampleserver.Options{Name: "example", TwoWay: true}).Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	got := make(chan struct{}, 1)
	var n int
	want := b.N
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			n++
			if n == want {
				got <- struct{}{}
			}
		},
	}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cs.Close()
		_ = ss.Wait()
	}()
	params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": b.N}}
	params.SetProgressToken("bench")
	before := benchcpu.Process()
	b.ResetTimer()
	if _, err := cs.CallTool(ctx, params); err != nil {
		b.Fatal(err)
	}
	select {
	case <-got:
	case <-ctx.Done():
		b.Fatalf("%d of %d notifications arrived", n, b.N)
	}
	b.StopTimer()
	perNote := float64((benchcpu.Process() - before).Microseconds()) / float64(b.N)
	b.ReportMetric(perNote, "cpu-µs/notification")
	b.ReportMetric(perNote*1000/1e6*100, "core-%-at-1000/s")
}
