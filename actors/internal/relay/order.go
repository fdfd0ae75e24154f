package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
)

// A server sends a call's notifications/progress before its response, but
// the go-sdk hands the response to the caller as soon as it is read and
// the notifications to a handler goroutine that may not have run yet: the
// call could end, and its last notifications be dropped or given to no
// call, before they were relayed. So the session counts the progress and
// log notifications it reads, and a call ends only once every one read
// before its response was handled (Relay.Drain).
//
// Counting needs the connection's reads, so the transport is wrapped.
// Where the wrapper reads the connection's messages itself (every
// transport but streamable HTTP), it also takes progress out of the
// go-sdk's way: each goes to its call's own queue, counted per call
// (countingConn.Read, Relay.relayProgress), so a call waits only
// for its own progress, and a caller slow to take it holds up nobody
// else. The streamable HTTP client's connection cannot be wrapped (the
// go-sdk tells it of the session's state through a method no other
// package can implement), so there the HTTP client's response bodies
// are: the events of every SSE stream are counted as they are read,
// before the go-sdk parses them.
//
// A count the go-sdk does not match (a replayed event it skips, a message
// it drops) would hold a call back for nothing: Drain waits at most
// maxDrain.

// OrderedTransport wraps t so that the relay counts what is read.
func (r *Relay) OrderedTransport(t mcp.Transport) mcp.Transport {
	if st, ok := t.(*mcp.StreamableClientTransport); ok {
		r.counted.Store(true)
		return verbatim.WrapRoundTripper(st, func(base http.RoundTripper) http.RoundTripper {
			return &sseCounting{base: base, relay: r}
		})
	}
	return &readCounting{Transport: t, relay: r}
}

// sseCounting counts the relayed notifications in every SSE response.
type sseCounting struct {
	base  http.RoundTripper
	relay *Relay
}

func (t *sseCounting) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &sseCounter{ReadCloser: resp.Body, relay: t.relay}
	}
	return resp, err
}

// sseCounter follows an SSE body line by line; at the blank line that
// ends an event, it counts the event's data if that is a relayed
// notification. It counts before the bytes reach the go-sdk.
type sseCounter struct {
	io.ReadCloser
	relay      *Relay
	line, data []byte
}

func (c *sseCounter) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	for _, b := range p[:n] {
		if b != '\n' {
			c.line = append(c.line, b)
			continue
		}
		line := bytes.TrimSuffix(c.line, []byte("\r"))
		switch {
		case len(line) == 0:
			if len(c.data) > 0 && isRelayedNotification(c.data) {
				c.relay.read.Add(1)
			}
			c.data = c.data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			c.data = append(c.data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
		c.line = c.line[:0]
	}
	return n, err
}

// isRelayedNotification reports whether an SSE event's data is one
// JSON-RPC notification of relayedNotifications.
func isRelayedNotification(data []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(data, &m) == nil && m.ID == nil && relayedNotifications[m.Method]
}

// relayedNotifications are the notifications whose handlers count
// themselves handled (Relay.relayed).
var relayedNotifications = map[string]bool{"notifications/progress": true, "notifications/message": true}

type readCounting struct {
	mcp.Transport
	relay *Relay
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
	relay *Relay
}

// Read returns the next message for the go-sdk, but for the
// notifications/progress it reads: the relay takes those itself
// (relayProgress counts and queues them), so they cost neither the
// go-sdk's typed decoding nor its handler dispatch. The go-sdk hands them
// to nobody but the relay anyway.
func (c *countingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		req, ok := msg.(*jsonrpc.Request)
		if !ok || req.IsCall() {
			return msg, err
		}
		if req.Method == progressMethod {
			c.relay.relayProgress(req.Params)
			continue
		}
		if relayedNotifications[req.Method] {
			c.relay.read.Add(1)
		}
		return msg, err
	}
}

// progressMethod is the notification a connection's reader relays itself.
const progressMethod = "notifications/progress"
