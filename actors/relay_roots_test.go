//lint:file-ignore SA1019 roots are deprecated from protocol 2026-07-28 on (SEP-2577) but are what this test exercises.

package actors_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// rootsServer lists the client's roots in its tool "roots" (an input
// request) and signals every notifications/roots/list_changed.
func rootsServer(changed chan<- struct{}) func() *mcp.Server {
	return func() *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "roots", Version: "1"}, &mcp.ServerOptions{
			RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) { changed <- struct{}{} },
		})
		srv.AddTool(tool("roots", "lists the client's roots"), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(uris, " ")}}}, nil
		})
		return srv
	}
}

func rootsOf(t *testing.T, ctx context.Context, sup *actors.Supervisor) string {
	t.Helper()
	res, err := sup.CallTool(ctx, "fs__roots", nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// A server's configured roots change while it runs: the session tells it
// (notifications/roots/list_changed), its next roots/list has the new
// ones, and it was never restarted.
func TestRoots_ConfigChangePublishedWithoutRestart(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	changed := make(chan struct{}, 8)
	f := newFleet(t, map[string]func() *mcp.Server{"fs": rootsServer(changed)})
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	writeConfig(t, path, map[string]any{"fs": map[string]any{"command": "in-memory", "roots": []string{"/srv/a", "file:///srv/b"}}})
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{ConfigPaths: []string{path}})
	rec.WaitState(ctx, 0, "fs", messages.StateReady)
	if got, want := rootsOf(t, ctx, sup), "file:///srv/a file:///srv/b"; got != want {
		t.Fatalf("roots %q, want %q", got, want)
	}
	session := sup.Status().Servers[0].Session

	writeConfig(t, path, map[string]any{"fs": map[string]any{"command": "in-memory", "roots": []string{"rel/c"}}})
	reload(t, ctx, sup, rec)
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("the server was not told its roots changed")
	}
	if got, want := rootsOf(t, ctx, sup), "file://"+filepath.Join(dir, "rel/c"); got != want {
		t.Errorf("roots after the change %q, want %q", got, want)
	}
	st := sup.Status().Servers[0]
	if st.Session != session || st.Restarts != 0 || f.dialCount("fs") != 1 {
		t.Errorf("server restarted: session %d (was %d), restarts %d, dials %d", st.Session, session, st.Restarts, f.dialCount("fs"))
	}
}

// With no handler set and no roots in its config, a server is offered no
// client capability at all.
func TestRelay_NothingAdvertisedWithoutAHandler(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	seen := make(chan *mcp.ClientCapabilities, 1)
	srv := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "caps", Version: "1"}, nil)
		s.AddTool(tool("caps", "reports the client's capabilities"), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			seen <- req.ClientCapabilities()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
		return s
	}
	f := newFleet(t, map[string]func() *mcp.Server{"caps": srv})
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{ConfigPaths: []string{configFor(t, "caps")}})
	rec.WaitState(ctx, 0, "caps", messages.StateReady)
	if _, err := sup.CallTool(ctx, "caps__caps", nil); err != nil {
		t.Fatal(err)
	}
	if c := <-seen; c != nil && (c.Sampling != nil || c.Elicitation != nil || c.RootsV2 != nil || c.Roots.ListChanged) {
		t.Errorf("advertised %+v with no handler and no roots", c)
	}
}
