package actors

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server sends a call's notifications/progress before its response, but
// the go-sdk hands the response to the caller as soon as it is read and
// the notifications to a handler goroutine that may not have run yet: the
// call could end, and its last notifications be dropped or given to no
// call, before they were relayed. So the session counts the progress and
// log notifications it reads, and a call ends only once every one read
// before its response was handled (sessionRelay.drain).
//
// Counting needs the connection's reads, so the transport is wrapped. The
// streamable HTTP client's connection cannot be: the go-sdk tells it of
// the session's state through a method no other package can implement.
// Its calls end without waiting, and can lose the notifications that were
// still queued when the response came.

// orderedTransport wraps t's connection so that the relay sees each
// message in the order it is read, unless t is streamable HTTP.
func (r *sessionRelay) orderedTransport(t mcp.Transport) mcp.Transport {
	if _, ok := t.(*mcp.StreamableClientTransport); ok {
		return t
	}
	return &readCounting{Transport: t, relay: r}
}

// relayedNotifications are the notifications whose handlers count
// themselves handled (sessionRelay.relayed).
var relayedNotifications = map[string]bool{"notifications/progress": true, "notifications/message": true}

type readCounting struct {
	mcp.Transport
	relay *sessionRelay
}

func (t *readCounting) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.relay.counted.Store(true)
	return &countingConn{Connection: c, relay: t.relay}, nil
}

type countingConn struct {
	mcp.Connection
	relay *sessionRelay
}

func (c *countingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && relayedNotifications[req.Method] && !req.IsCall() {
		c.relay.read.Add(1)
	}
	return msg, err
}
