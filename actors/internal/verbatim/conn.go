package verbatim

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport wraps t so that the result of every call sent under a
// Capture context is recorded in its Slot, and the params of every
// request the server sends that RequestsKept names are added to requests
// (if not nil; by method). A streamable HTTP transport keeps its type
// (the go-sdk needs it): its HTTP client is wrapped instead (http.go).
func Transport(t mcp.Transport, requests *Recent) mcp.Transport {
	if st, ok := t.(*mcp.StreamableClientTransport); ok {
		return WrapRoundTripper(st, func(base http.RoundTripper) http.RoundTripper {
			return &httpCapture{base: base, requests: requests}
		})
	}
	return &capturing{Transport: t, requests: requests}
}

// RequestsKept are the methods of the server's requests whose params a
// Transport keeps: an elicitation's requestedSchema is free-form JSON,
// its properties' order the order of the form's fields.
var RequestsKept = map[string]bool{"elicitation/create": true}

type capturing struct {
	mcp.Transport
	requests *Recent
}

func (t *capturing) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Connection: c, requests: t.requests}, nil
}

// conn records, by request id, the calls written under a Capture context,
// and hands each one's result to its Slot when the response is read.
type conn struct {
	mcp.Connection
	requests *Recent
	waiting  atomic.Int32 // len(pending), read without the lock
	mu       sync.Mutex
	pending  map[jsonrpc.ID]call
}

type call struct {
	method string
	slot   *Slot
	done   <-chan struct{} // the caller's context's: a call given up on is swept
}

// sweepAt is how many calls may wait for a response before those whose
// caller gave up are dropped: a response that never comes must not pin
// its entry for the connection's life.
const sweepAt = 64

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return c.Connection.Write(ctx, msg)
	}
	slot := slotOf(ctx)
	if slot == nil {
		return c.Connection.Write(ctx, msg)
	}
	c.expect(req.ID, call{method: req.Method, slot: slot, done: ctx.Done()})
	err := c.Connection.Write(ctx, msg)
	if err != nil {
		c.take(req.ID)
	}
	return err
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && c.requests != nil && RequestsKept[req.Method] {
		c.requests.Add(req.Method, req.Params)
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && c.waiting.Load() > 0 {
		if cl, ok := c.take(resp.ID); ok && resp.Error == nil {
			cl.slot.record(cl.method, resp.Result)
		}
	}
	return msg, err
}

func (c *conn) expect(id jsonrpc.ID, cl call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = map[jsonrpc.ID]call{}
	}
	if len(c.pending) >= sweepAt {
		for id, old := range c.pending {
			select {
			case <-old.done:
				delete(c.pending, id)
			default:
			}
		}
	}
	c.pending[id] = cl
	c.waiting.Store(int32(len(c.pending)))
}

func (c *conn) take(id jsonrpc.ID) (call, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.pending[id]
	if ok {
		delete(c.pending, id)
		c.waiting.Store(int32(len(c.pending)))
	}
	return cl, ok
}

// WrapRoundTripper is a copy of st whose HTTP client sends through
// wrap(the round tripper it had, or http.DefaultTransport). A streamable
// HTTP client connection cannot be wrapped itself, so what reads its bytes
// wraps its HTTP client. Call it before Connect: nothing in st is in use
// yet.
func WrapRoundTripper(st *mcp.StreamableClientTransport, wrap func(http.RoundTripper) http.RoundTripper) *mcp.StreamableClientTransport {
	cp := *st
	hc := http.Client{}
	if st.HTTPClient != nil {
		hc = *st.HTTPClient
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = wrap(base)
	cp.HTTPClient = &hc
	return &cp
}
