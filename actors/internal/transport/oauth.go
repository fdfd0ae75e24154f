package transport

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
)

// OAuthClient is the HTTP client an OAuth handler of this connection
// should use, and whether the connection can take one at all: streamable
// HTTP, or HTTP+SSE behind its origin guard. Stdio and custom transports
// cannot. Its transport is its own (a clone of the connection's, closed
// with it by Release), with the go-sdk's guard against reaching
// non-public addresses that the connection's own dialer turns off
// (oauth.NewClient): metadata may name any host, the config only some.
func (c *Conn) OAuthClient(serverURL string, spec *messages.OAuthSpec) (*http.Client, bool) {
	_, streamable := c.transport.(*mcp.StreamableClientTransport)
	_, sse := c.transport.(*mcp.SSEClientTransport)
	if !streamable && (!sse || c.guard == nil) {
		return nil, false
	}
	client, t := oauth.NewClient(c.http, serverURL, spec)
	c.oauthHTTP = t
	return client, true
}

// Authorize puts h in front of the connection's requests: the streamable
// HTTP transport takes it as it is; an HTTP+SSE connection, which has no
// OAuth hook, gets it inside its origin guard (authorizeSSE), and so does
// the HTTP+SSE connection that detection may fall back to.
func (c *Conn) Authorize(h *oauth.Handler) {
	c.oauth = h
	if st, ok := c.transport.(*mcp.StreamableClientTransport); ok {
		st.OAuthHandler = h
		return
	}
	c.authorizeSSE()
}

// authorizeSSE puts the session's OAuth handler in front of an HTTP+SSE
// connection's requests, inside its origin guard (so a request the guard
// refuses never gets a token): the bearer token on every request, and a
// 401 or 403 handled as the streamable transport handles it
// (oauth.Transport).
func (c *Conn) authorizeSSE() {
	if c.oauth != nil && c.guard != nil {
		c.guard.next = oauth.Transport(c.oauth, c.guard.origin, c.guard.next)
	}
}
