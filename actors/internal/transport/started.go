package transport

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// OnStart has started called once the connection's process has started
// (its pid leads the server's process group), on the goroutine that
// connects it. It does nothing for a connection without a process.
func (c *Conn) OnStart(started func(pid int)) {
	if c.cmd == nil {
		return
	}
	c.transport = &startedTransport{Transport: c.transport, started: func() { started(c.PID()) }}
}

// startedTransport calls started once its transport has connected (for
// stdio: the process has started), on the goroutine that connected it.
type startedTransport struct {
	mcp.Transport
	started func()
}

func (t *startedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err == nil {
		t.started()
	}
	return c, err
}
