package gateway_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// BenchmarkServe_ProgressRelay relays b.N notifications/progress of one
// call, sent by the example server over stdio at 1,000 a second, through
// `mcpvisor serve` (stdio) to a go-sdk client, and reports what the
// gateway's process alone spent on them: its CPU time (every thread, the
// garbage collector's included, from /proc) per notification, and as a
// share of one core over the call (the target: under 5%). The upstream
// server and the client are other processes; their CPU is not counted.
// /proc counts in 10 ms ticks, so give it ten seconds or more:
//
//	go test -run '^$' -bench ProgressRelay -benchtime 10000x ./test/gateway/
func BenchmarkServe_ProgressRelay(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cfg := filepath.Join(b.TempDir(), ".mcp.json")
	testkit.WriteConfig(b, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin, "--two-way")})
	var n int
	got := make(chan struct{}, 1)
	want := b.N
	listChanged := make(chan struct{}, 1)
	cmd := serveCommand("--config", cfg)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			n++
			if n == want {
				got <- struct{}{}
			}
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case listChanged <- struct{}{}:
			default:
			}
		},
	}).Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	waitTool(b, ctx, cs, listChanged, "alpha__progress")
	const perSecond = 1000
	params := &mcp.CallToolParams{Name: "alpha__progress", Arguments: map[string]any{"steps": b.N, "perSecond": perSecond}}
	params.SetProgressToken("bench")
	before, err := testkit.ProcessCPU(cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
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
	wall := time.Since(start)
	after, err := testkit.ProcessCPU(cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	cpu := after - before
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "gateway-cpu-µs/notification")
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "gateway-core-%")
	b.ReportMetric(float64(b.N)/wall.Seconds(), "notifications/s")
}

// waitTool waits until cs lists tool.
func waitTool(b *testing.B, ctx context.Context, cs *mcp.ClientSession, changed <-chan struct{}, tool string) {
	b.Helper()
	waitListed(b, ctx, changed, tool, func() ([]string, error) {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, t := range res.Tools {
			names = append(names, t.Name)
		}
		return names, nil
	})
}
