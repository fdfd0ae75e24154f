package transport

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Transport detection, as the MCP specification's backwards-compatibility
// section describes it for clients: an http server is tried as streamable
// HTTP first; when the server answers the handshake's POST with a 4xx
// status, it is an older server, and the client opens the HTTP+SSE
// transport instead (a GET whose first event names the endpoint to POST
// to). 401 and 403 are not such an answer: a streamable server that wants
// credentials says so with them, and falling back would hide it.

// transportDetector watches the streamable attempt's POSTs and builds the
// HTTP+SSE fallback.
type transportDetector struct {
	spec messages.ServerSpec
	// lastPOST is the status of the latest POST answered (0: none yet).
	// The go-sdk may POST more than once while connecting (a discover
	// probe, then initialize); the last answer is the one that failed.
	lastPOST atomic.Int32
	// fellBack is set once the HTTP+SSE transport replaced the streamable
	// one.
	fellBack atomic.Bool
}

// detectTransport arms detection on a freshly dialled streamable HTTP
// connection: its HTTP client reports every POST's status.
func detectTransport(spec messages.ServerSpec, cn *Conn) *Conn {
	st, ok := cn.transport.(*mcp.StreamableClientTransport)
	if !ok || st.HTTPClient == nil {
		return cn
	}
	d := &transportDetector{spec: spec}
	next := st.HTTPClient.Transport
	st.HTTPClient.Transport = roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err == nil && req.Method == http.MethodPost {
			d.lastPOST.Store(int32(resp.StatusCode))
		}
		return resp, err
	})
	cn.detect = d
	return cn
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// olderServer reports whether the streamable attempt failed the way an
// HTTP+SSE-only server makes it fail.
func (d *transportDetector) olderServer() bool {
	code := d.lastPOST.Load()
	return code >= 400 && code < 500 && code != http.StatusUnauthorized && code != http.StatusForbidden
}

// ConnectDetecting connects cn, falling back from streamable HTTP to
// HTTP+SSE when the server is an older one. On a fallback cn is switched
// to the SSE transport (and its HTTP client, bound to the URL's origin as
// every SSE connection is), so whoever holds cn closes what runs. wrap is
// applied to the transport of each attempt (the relay's read counting).
func ConnectDetecting(ctx context.Context, client *mcp.Client, cn *Conn, wrap func(mcp.Transport) mcp.Transport) (*mcp.ClientSession, error) {
	cs, err := client.Connect(ctx, wrap(cn.transport), nil)
	d := cn.detect
	if err == nil || d == nil || ctx.Err() != nil || !d.olderServer() {
		return cs, err
	}
	hc, ht, derr := originBoundClient(d.spec.URL, d.spec.Headers, true)
	if derr != nil {
		return nil, err
	}
	var old *headersHelper
	if cn.guard != nil {
		old, _ = cn.guard.next.(*headersHelper)
	}
	cn.Release()
	cn.transport, cn.http, cn.guard = &mcp.SSEClientTransport{Endpoint: d.spec.URL, HTTPClient: hc}, ht, guardOf(hc)
	if old != nil { // the entry's headersHelper serves the SSE connection too
		cn.UseHeadersHelper(old.spec, old.environ, old.learn)
	}
	cn.authorizeSSE() // the session's OAuth, if it has any, too
	d.fellBack.Store(true)
	code := d.lastPOST.Load()
	cs, err = client.Connect(ctx, wrap(cn.transport), nil)
	if err != nil {
		return nil, fmt.Errorf("streamable HTTP refused with %d %s, then HTTP+SSE: %w", code, http.StatusText(int(code)), err)
	}
	return cs, nil
}
