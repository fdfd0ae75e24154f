package session

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// A request made with a handle read just before its session ended finds
// the lane withdrawn and is answered not ready at once, without running
// (and without waiting for a timer, which the mock clock here never
// fires): whether the session actor stopped, or the server's connection
// dropped and the actor still lives.
func TestHandle_RequestToAnEndedSessionIsNotReadyAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		end  func(r *rig, h *Handle, server net.Conn)
		want string
	}{
		{"actor stopped", func(r *rig, h *Handle, _ net.Conn) { r.sys.Root.Stop(h.PID()) }, "session ended"},
		{"connection dropped", func(_ *rig, _ *Handle, server net.Conn) { _ = server.Close() }, "not connected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := testctx.Context(t)
			ends := make(chan net.Conn, 1)
			r := newRig(t, pipeServer(ends))
			h := r.spawn(messages.ServerSpec{Name: "s", Transport: messages.TransportStdio}, 1)
			report[*Ready](ctx, r)
			if h.lane.Load() == nil {
				t.Fatal("ready, but no lane published")
			}
			tc.end(r, h, <-ends)
			for h.lane.Load() != nil {
				// A failure is reported after the lane goes; a stopped
				// actor closes gone after it.
				select {
				case <-r.reports:
				case <-h.gone:
				case <-ctx.Done():
					t.Fatal("the session's lane was never withdrawn")
				}
			}
			_, err := h.Run(&Request{Ctx: ctx, Do: func(context.Context, *mcp.ClientSession) (any, error) {
				t.Error("an ended session ran the request")
				return nil, nil
			}})
			if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrNotReady saying %q", err, tc.want)
			}
		})
	}
}
