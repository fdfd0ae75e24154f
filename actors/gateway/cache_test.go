package gateway_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/coder/quartz"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// heldFleet dials in-memory servers whose handshake waits until the test
// releases that server (the transport's Connect waits, within the
// connect's context). Each dial builds a fresh server.
type heldFleet struct {
	mu       sync.Mutex
	mk       map[string]func() *mcp.Server
	released map[string]chan struct{}
}

func newHeldFleet(t testing.TB, mk map[string]func() *mcp.Server) *heldFleet {
	f := &heldFleet{mk: mk, released: map[string]chan struct{}{}}
	for name := range mk {
		f.released[name] = make(chan struct{})
	}
	t.Cleanup(func() {
		for name := range mk {
			f.release(name)
		}
	})
	return f
}

// release lets name's handshakes through.
func (f *heldFleet) release(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.released[name]:
	default:
		close(f.released[name])
	}
}

func (f *heldFleet) dial(spec messages.ServerSpec) (mcp.Transport, error) {
	return &heldTransport{released: f.released[spec.Name], mk: f.mk[spec.Name]}, nil
}

type heldTransport struct {
	released <-chan struct{}
	mk       func() *mcp.Server
}

func (t *heldTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	select {
	case <-t.released:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := t.mk().Connect(context.Background(), st, nil); err != nil {
		return nil, err
	}
	return ct.Connect(ctx)
}

// toolsServer is an in-memory server with these tools.
func toolsServer(tools ...*mcp.Tool) func() *mcp.Server {
	return func() *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}})
		for _, tl := range tools {
			srv.AddTool(tl, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
		}
		return srv
	}
}

func memTool(name, desc string) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: desc, InputSchema: map[string]any{"type": "object"}}
}

// cacheConfig writes a config naming each server (dialled in memory).
func cacheConfig(t testing.TB, names ...string) string {
	t.Helper()
	servers := map[string]any{}
	for _, n := range names {
		servers[n] = map[string]any{"command": "in-memory"}
	}
	path := filepath.Join(t.TempDir(), "mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// warmGatewayCache runs a supervisor over config until its servers are
// ready, then closes it, which leaves their catalogs in dir.
func warmGatewayCache(t testing.TB, ctx context.Context, dir, config string, mk map[string]func() *mcp.Server) {
	t.Helper()
	f := newHeldFleet(t, mk)
	for name := range mk {
		f.release(name)
	}
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{config}, CacheDir: dir, Dial: f.dial, DisableWatch: true,
		ProbeInterval: -1, Clock: quartz.NewMock(t).WithLogger(quartz.NoOpLogger), Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	feed := sup.Follow(0, 1024)
	defer feed.Close()
	ready := map[string]bool{}
	for len(ready) < len(mk) {
		select {
		case env := <-feed.C:
			if sc, ok := env.Event.(*messages.ServerStateChanged); ok && sc.To == messages.StateReady {
				ready[sc.Server] = true
			}
		case <-ctx.Done():
			t.Fatalf("warming the cache: servers ready %v: %v", ready, ctx.Err())
		}
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
}

// followInto runs a gateway over sup for the harness: the feed starts
// before Run (in setup), and is copied into the harness's events.
func followInto(t *testing.T, sup *actors.Supervisor) func(*harness) {
	return func(h *harness) {
		feed := sup.Follow(journal.Live, 256)
		done, copied := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(copied)
			for env := range feed.C {
				select {
				case h.events <- env:
				case <-done:
					return
				}
			}
		}()
		t.Cleanup(func() {
			close(done)
			feed.Close()
			<-copied
		})
	}
}

// With every server's catalog in the cache, the gateway answers its first
// tools/list at once, from the cache, while the servers' handshakes are
// still held (the startup wait, on a clock nobody advances, never ends).
// When a live catalog comes and differs, clients get list_changed and
// the new tools; when it is the same, the gateway exposes nothing anew.
func TestGateway_FirstListAnsweredFromTheCatalogCache(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir, config := t.TempDir(), cacheConfig(t, "alpha", "beta")
	warmGatewayCache(t, ctx, dir, config, map[string]func() *mcp.Server{
		"alpha": toolsServer(memTool("echo", "Echoes.")),
		"beta":  toolsServer(memTool("fetch", "Fetches.")),
	})

	held := newHeldFleet(t, map[string]func() *mcp.Server{
		"alpha": toolsServer(memTool("echo", "Echoes."), memTool("shout", "Shouts.")), // differs
		"beta":  toolsServer(memTool("fetch", "Fetches.")),                            // the same
	})
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{config}, CacheDir: dir, Dial: held.dial, DisableWatch: true,
		ProbeInterval: -1, Clock: quartz.NewMock(t).WithLogger(quartz.NoOpLogger), Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	rec := actorstest.Record(t, sup)
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	h := startGatewayOver(t, sup, func(h *harness) {
		followInto(t, sup)(h)
		h.gw.HoldFirstLists(gateway.DefaultStartupWait, quartz.NewMock(t))
	})
	c := h.connectInMemory(ctx, "")
	if diff := cmp.Diff([]string{"alpha__echo", "beta__fetch"}, c.names(ctx)); diff != "" {
		t.Fatalf("first tools/list (-want +got):\n%s", diff)
	}
	for _, row := range sup.Status().Servers {
		if row.State == messages.StateReady {
			t.Fatalf("%s is ready already: the list did not come from the cache", row.Name)
		}
	}

	// beta first: once alpha's change is visible, the gateway has applied
	// everything beta's live catalog caused, which was nothing.
	held.release("beta")
	rec.WaitState(ctx, 0, "beta", messages.StateReady)
	actorstest.Barrier(ctx, t, sup, actorstest.Fleet)
	held.release("alpha")
	c.expectChange(ctx, "alpha__echo", "alpha__shout", "beta__fetch")
	if n := h.logs.FilterMessage("tools updated").FilterField(zap.String("server", "beta")).Len(); n != 1 {
		t.Errorf("beta's tools exposed %d times, want once (from the cache; its live catalog is the same)", n)
	}
}
