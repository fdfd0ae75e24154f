package actors

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/test/testctx"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/fleet"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// A session whose server died is stopped once the fleet actor has replaced
// it: dead sessions do not pile up as actors.
func TestSession_DeadSessionActorIsStopped(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	serverSessions := make(chan *mcp.ServerSession, 4)
	dial := func(messages.ServerSpec) (mcp.Transport, error) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		serverSessions <- ss
		return ct, err
	}
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"s": {"command": "x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	sup, err := Start(Options{
		ConfigPaths: []string{cfg}, Dial: dial, DisableWatch: true, ProbeInterval: -1, Logger: zap.NewNop(),
		Backoff: reconciler.Backoff{Initial: time.Millisecond, Max: time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	sub := sup.Follow(journal.Live, 64)
	defer sub.Close()
	waitReady := func(notSession uint64) *fleet.Row {
		for {
			if row, ok := sup.tree.Snapshot().Row("s"); ok && row.Routable && row.Status.Session != notSession {
				return row
			}
			select {
			case <-sub.C:
			case <-ctx.Done():
				t.Fatal("server never became ready")
			}
		}
	}
	first := waitReady(0)
	(<-serverSessions).Close() // the server dies
	waitReady(first.Status.Session)

	terminated := make(chan struct{})
	watcher := sup.tree.System().Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch c.Message().(type) {
		case *actor.Started:
			c.Watch(first.Session.PID())
		case *actor.Terminated:
			close(terminated)
		}
	}))
	defer sup.tree.System().Root.Stop(watcher)
	select {
	case <-terminated:
	case <-ctx.Done():
		t.Fatal("the dead session's actor is still alive")
	}
}
