package actors

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// A session whose server died is stopped once the reconciler has replaced
// it: dead sessions do not pile up as actors.
func TestSession_DeadSessionActorIsStopped(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
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
	waitReady := func(notSession uint64) *serverRow {
		for {
			if row, ok := sup.view.load().row("s"); ok && row.ready && row.status.Session != notSession {
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
	waitReady(first.status.Session)

	terminated := make(chan struct{})
	watcher := sup.sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch c.Message().(type) {
		case *actor.Started:
			c.Watch(first.session)
		case *actor.Terminated:
			close(terminated)
		}
	}))
	defer sup.sys.Root.Stop(watcher)
	select {
	case <-terminated:
	case <-ctx.Done():
		t.Fatal("the dead session's actor is still alive")
	}
}

// A request made with a row read just before its session ended finds the
// session's lane withdrawn and is answered not ready at once, without
// running (and without waiting for a timer, which the mock clock here
// never fires): whether the session actor stopped, or the server's
// connection dropped and the actor still lives.
func TestSession_RequestToAnEndedSessionIsNotReadyAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		end  func(sup *Supervisor, row *serverRow, server net.Conn)
		want string
	}{
		{"actor stopped", func(sup *Supervisor, row *serverRow, _ net.Conn) { sup.sys.Root.Stop(row.session) }, "session ended"},
		{"connection dropped", func(_ *Supervisor, _ *serverRow, server net.Conn) { _ = server.Close() }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			servers := make(chan net.Conn, 1)
			dial := func(messages.ServerSpec) (mcp.Transport, error) {
				server, client := net.Pipe()
				srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
				if _, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: server, Writer: server}, nil); err != nil {
					return nil, err
				}
				servers <- server
				return &mcp.IOTransport{Reader: client, Writer: client}, nil
			}
			cfg := filepath.Join(t.TempDir(), "mcp.json")
			if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"s": {"command": "x"}}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			sup, err := Start(Options{
				ConfigPaths: []string{cfg}, Dial: dial, DisableWatch: true, ProbeInterval: -1, Logger: zap.NewNop(),
				Clock: quartz.NewMock(t).WithLogger(quartz.NoOpLogger),
			})
			if err != nil {
				t.Fatal(err)
			}
			defer sup.Close()
			sub := sup.Follow(journal.Live, 64)
			defer sub.Close()
			var row *serverRow
			for row == nil {
				if r, ok := sup.view.load().row("s"); ok && r.ready {
					row = r
					break
				}
				select {
				case <-sub.C:
				case <-ctx.Done():
					t.Fatal("server never became ready")
				}
			}
			tc.end(sup, row, <-servers)
			for row.handle.lane.Load() != nil {
				// A failure is reported after the lane goes; a stopped
				// actor closes gone after it.
				select {
				case <-sub.C:
				case <-row.handle.gone:
				case <-ctx.Done():
					t.Fatal("the session's lane was never withdrawn")
				}
			}
			_, err = sup.request(ctx, row, func(ctx context.Context, cs *mcp.ClientSession) (any, error) {
				t.Error("an ended session ran the request")
				return nil, nil
			})
			if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrNotReady saying %q", err, tc.want)
			}
		})
	}
}
