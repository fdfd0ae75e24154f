package actors_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
	"github.com/mcpvisor/mcpvisor/messages"
)

func twoWayServer() *mcp.Server {
	return exampleserver.New(exampleserver.Options{Name: "example", TwoWay: true})
}

// callWithProgress calls server__progress for steps notifications and
// returns those the callback had got when CallTool returned.
func callWithProgress(t *testing.T, ctx context.Context, sup *actors.Supervisor, server string, steps int) []messages.Progress {
	t.Helper()
	var mu sync.Mutex
	var got []messages.Progress
	_, err := sup.CallTool(ctx, server+"__progress", map[string]any{"steps": steps}, actors.WithProgress(func(p messages.Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]messages.Progress{}, got...)
}

// A call returns only once every notifications/progress the server sent
// before its answer reached the callback, in order (the go-sdk hands the
// answer over first): over stdio-like pipes and over streamable HTTP.
func TestRelay_ProgressAllDeliveredBeforeTheCallReturns(t *testing.T) {
	t.Parallel()
	const steps = 200
	check := func(t *testing.T, got []messages.Progress) {
		t.Helper()
		if len(got) != steps {
			t.Fatalf("%d of %d notifications before the call returned", len(got), steps)
		}
		for i, p := range got {
			if p.Progress != float64(i+1) || p.Total != steps || p.Server != "up" {
				t.Fatalf("notification %d is %+v", i, p)
			}
		}
	}
	t.Run("pipe", func(t *testing.T) {
		t.Parallel()
		ctx := testContext(t)
		f := newFleet(t, map[string]func() *mcp.Server{"up": twoWayServer})
		sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{ConfigPaths: []string{configFor(t, "up")}})
		rec.WaitState(ctx, 0, "up", messages.StateReady)
		check(t, callWithProgress(t, ctx, sup, "up", steps))
	})
	t.Run("streamable-http", func(t *testing.T) {
		t.Parallel()
		ctx := testContext(t)
		srv := twoWayServer()
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		t.Cleanup(hs.Close)
		path := filepath.Join(t.TempDir(), "mcp.json")
		writeConfig(t, path, map[string]any{"up": map[string]any{"type": "http", "url": hs.URL}})
		sup, rec := startWithDial(t, quartz.NewMock(t), func(messages.ServerSpec) (mcp.Transport, error) { return nil, nil }, actors.Options{ConfigPaths: []string{path}})
		rec.WaitState(ctx, 0, "up", messages.StateReady)
		check(t, callWithProgress(t, ctx, sup, "up", steps))
	})
}
