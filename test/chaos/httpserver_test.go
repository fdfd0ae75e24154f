package chaos_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpServers are the two HTTP MCP servers of the fleet, on 127.0.0.1:
// live serves an echo tool over streamable HTTP (the go-sdk's stateless
// handler) to requests carrying every secret the config gives it (the
// bearer token, the URL path and query); dead answers every request with a
// 500. Both close with close, which waits for their connections.
type httpServers struct {
	live, dead *httptest.Server
	refused    atomic.Int64 // live's requests without the right secrets
	served     atomic.Int64 // live's requests passed to the MCP handler
	failed     atomic.Int64 // dead's requests
}

type echoIn struct {
	Message string `json:"message" jsonschema:"the text to send back"`
}

func startHTTPServers(token, path, query string) *httpServers {
	s := &httpServers{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "chaos-http", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Returns the message unchanged."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	s.live = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token || r.URL.Path != "/mcp/"+path || r.URL.Query().Get("token") != query {
			s.refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		s.served.Add(1)
		h.ServeHTTP(w, r)
	}))
	s.dead = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.failed.Add(1)
		http.Error(w, "chaos: internal server error", http.StatusInternalServerError)
	}))
	return s
}

func (s *httpServers) liveAddr() string { return strings.TrimPrefix(s.live.URL, "http://") }
func (s *httpServers) deadAddr() string { return strings.TrimPrefix(s.dead.URL, "http://") }

func (s *httpServers) close() {
	for _, ts := range []*httptest.Server{s.live, s.dead} {
		ts.CloseClientConnections()
		ts.Close()
	}
}
