package actors_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// benchFleet starts a supervisor over n in-memory echo servers (real
// clock, no watcher, no probes) and waits until all are ready.
func benchFleet(b *testing.B, n int) (*actors.Supervisor, *journal.Feed) {
	b.Helper()
	servers := map[string]any{}
	for i := range n {
		servers[fmt.Sprintf("s%04d", i)] = map[string]any{"command": "in-memory"}
	}
	path := filepath.Join(b.TempDir(), "mcp.json")
	if err := os.WriteFile(path, mustJSON(map[string]any{"mcpServers": servers}), 0o600); err != nil {
		b.Fatal(err)
	}
	sup, err := actors.Start(actors.Options{
		ConfigPaths: []string{path}, Dial: benchDial, DisableWatch: true, ProbeInterval: -1,
		Logger: zap.NewNop(), MaxConnects: 64, JournalSize: 1 << 16,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = sup.Close() })
	sub := sup.Follow(0, 1<<16)
	b.Cleanup(sub.Close)
	ctx := context.Background()
	for ready := countReady(sup); ready < n; {
		select {
		case <-sub.C:
			ready = countReady(sup)
		case <-ctx.Done():
		}
	}
	return sup, sub
}

func countReady(sup *actors.Supervisor) int {
	n := 0
	for _, s := range sup.Status().Servers {
		if s.State == messages.StateReady {
			n++
		}
	}
	return n
}

func benchDial(messages.ServerSpec) (mcp.Transport, error) {
	st, ct := mcp.NewInMemoryTransports()
	if _, err := toolServer(tool("echo", "e"))().Connect(context.Background(), st, nil); err != nil {
		return nil, err
	}
	return ct, nil
}

// directSession is the baseline: the same in-memory server behind a raw
// go-sdk client session.
func directSession(b *testing.B) *mcp.ClientSession {
	tr, _ := benchDial(messages.ServerSpec{})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Tool-call latency through the session actor versus the go-sdk session
// directly, in memory.
func BenchmarkCallTool_InMemory(b *testing.B) {
	ctx := context.Background()
	args := map[string]any{}
	b.Run("direct", func(b *testing.B) {
		cs := directSession(b)
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("supervisor", func(b *testing.B) {
		sup, _ := benchFleet(b, 1)
		for b.Loop() {
			if _, err := sup.CallTool(ctx, "s0000__echo", args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Throughput of 64 concurrent callers on one server.
func BenchmarkCallTool_64Callers(b *testing.B) {
	ctx := context.Background()
	args := map[string]any{}
	parallelism := max(1, 64/runtime.GOMAXPROCS(0))
	b.Run("direct", func(b *testing.B) {
		cs := directSession(b)
		b.SetParallelism(parallelism)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("supervisor", func(b *testing.B) {
		sup, _ := benchFleet(b, 1)
		b.SetParallelism(parallelism)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := sup.CallTool(ctx, "s0000__echo", args); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// Memory per idle session: heap growth per ready in-memory server (a fleet
// of 200 against an empty one, so the actor system's fixed cost is not
// counted), with the cost of a bare in-memory client/server pair beside it.
func BenchmarkIdleSessionMemory(b *testing.B) {
	const n = 200
	heap := func() int64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	for b.Loop() {
		before := heap()
		var pairs []*mcp.ClientSession
		for range n {
			tr, _ := benchDial(messages.ServerSpec{})
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), tr, nil)
			if err != nil {
				b.Fatal(err)
			}
			pairs = append(pairs, cs)
		}
		bare := heap() - before
		for _, cs := range pairs {
			_ = cs.Close()
		}
		fleet := func(size int) int64 {
			before := heap()
			sup, sub := benchFleet(b, size)
			grown := heap() - before
			sub.Close()
			_ = sup.Close()
			return grown
		}
		empty, full := fleet(0), fleet(n)
		perSession := float64(full-empty) / n
		b.ReportMetric(perSession, "B/session")
		b.ReportMetric(float64(bare)/n, "B/bare-pair")
		b.ReportMetric(perSession-float64(bare)/n, "B/actor-overhead")
	}
}

// Applying an edit that adds one server to a running fleet of 1,000: from
// the desired state reaching the fleet actor to the new server ready. No
// other server may change state.
func BenchmarkReconcile_AddOneTo1000(b *testing.B) {
	const n = 1000
	sup, sub := benchFleet(b, n)
	base := sup.Status()
	specs := make([]messages.ServerSpec, 0, n+b.N)
	for _, s := range base.Servers {
		spec := messages.ServerSpec{Name: s.Name, Transport: messages.TransportStdio, Command: "in-memory"}
		spec.Fingerprint = config.Fingerprint(spec)
		specs = append(specs, spec)
	}
	gen := base.Generation
	i := 0
	for b.Loop() {
		name := fmt.Sprintf("new%06d", i)
		i++
		spec := messages.ServerSpec{Name: name, Transport: messages.TransportStdio, Command: "in-memory"}
		spec.Fingerprint = config.Fingerprint(spec)
		specs = append(specs, spec)
		gen++
		// Nobody writes below len(specs): the fleet actor may keep the slice.
		actorstest.Send(b, sup, actorstest.Fleet, &messages.DesiredState{Generation: gen, Servers: specs[:len(specs):len(specs)]})
		for done := false; !done; {
			env := <-sub.C
			if sc, ok := env.Event.(*messages.ServerStateChanged); ok {
				switch {
				case sc.Server == name && sc.To == messages.StateReady:
					done = true
				case sc.Server != name && sc.Generation > base.Generation:
					b.Fatalf("another server was touched: %+v", sc)
				}
			}
		}
	}
}

// The new server's own start, measured alone: an in-memory connect plus
// tools/list. Subtract it from BenchmarkReconcile_AddOneTo1000.
func BenchmarkReconcile_ServerOwnStart(b *testing.B) {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	for b.Loop() {
		tr, _ := benchDial(messages.ServerSpec{})
		cs, err := client.Connect(ctx, tr, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range cs.Tools(ctx, nil) {
			if err != nil {
				b.Fatal(err)
			}
		}
		_ = cs.Close()
	}
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}
