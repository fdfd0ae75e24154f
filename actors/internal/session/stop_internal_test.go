package session

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// stubbornTransport is an in-memory server whose connection does not
// close until release is closed: a server that ignores the end of its
// input, as far as the session can tell.
type stubbornTransport struct {
	mcp.Transport
	release <-chan struct{}
}

func (t stubbornTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return stubbornConn{Connection: c, release: t.release}, nil
}

type stubbornConn struct {
	mcp.Connection
	release <-chan struct{}
}

func (c stubbornConn) Close() error {
	<-c.release
	return c.Connection.Close()
}

// stubbornRig is a rig whose one server is stubborn until release is
// called (at the latest when the test ends, before the rig closes), with
// the fleet's StopGrace of 1s and Close's grace of 300ms.
func stubbornRig(t *testing.T) (r *rig, release func()) {
	r = newRig(t, nil)
	ch := make(chan struct{})
	release = sync.OnceFunc(func() { close(ch) })
	t.Cleanup(release) // first: the rig's close waits for the session
	var stubborn <-chan struct{} = ch
	ends := make(chan net.Conn, 1)
	r.deps.CloseGrace = 300 * time.Millisecond
	r.deps.Dial = func(spec messages.ServerSpec) (mcp.Transport, error) {
		tr, err := pipeServer(ends)(spec)
		return stubbornTransport{Transport: tr, release: stubborn}, err
	}
	return r, release
}

// released waits for the trapped timer, releases it (a failing test must
// not leave the session stuck in it) and returns its duration.
func released(ctx context.Context, trap *quartz.Trap) time.Duration {
	call := trap.MustWait(ctx)
	call.MustRelease(ctx)
	return call.Duration
}

// The Supervisor's Close (the session actor stopping) is a client's stop:
// the group gets SIGTERM at half of CloseGrace, SIGKILL at the end, not
// after the fleet's StopGrace.
func TestStop_CloseTakesCloseGrace(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	r, release := stubbornRig(t)
	grace := r.clock.Trap().NewTimer("session", "stop-grace")
	defer grace.Close()
	h := r.spawn(messages.ServerSpec{Name: "stubborn", Transport: messages.TransportStdio}, 1)
	report[*Ready](ctx, r)

	r.sys.Root.Stop(h.PID())
	if d := released(ctx, grace); d != 150*time.Millisecond {
		t.Fatalf("Close's grace before SIGTERM = %s, want half of CloseGrace (150ms)", d)
	}
	release()
}

// A fleet stop waits StopGrace; when the Supervisor closes meanwhile, the
// stop is hurried: SIGTERM at once (no timer fired), SIGKILL at half of
// CloseGrace.
func TestStop_CloseHurriesAFleetStopUnderWay(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	r, release := stubbornRig(t)
	grace := r.clock.Trap().NewTimer("session", "stop-grace")
	defer grace.Close()
	kill := r.clock.Trap().NewTimer("session", "stop-kill")
	defer kill.Close()
	h := r.spawn(messages.ServerSpec{Name: "stubborn", Transport: messages.TransportStdio}, 1)
	report[*Ready](ctx, r)

	h.Stop()
	if d := released(ctx, grace); d != time.Second {
		t.Fatalf("a fleet stop's grace = %s, want StopGrace (1s)", d)
	}
	r.sys.Root.Stop(h.PID()) // the Supervisor closes
	if d := released(ctx, kill); d != 150*time.Millisecond {
		t.Fatalf("the hurried stop's SIGKILL after %s, want half of CloseGrace (150ms)", d)
	}
	release()
}
