package actors_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// Names as people write them: a server named after its repository URL and
// one named "_private" run under their names as written; their tools are
// exposed and called under the derived prefixes status shows, a server
// with "prefix": "" exposes its tools by their own names, and a changed
// prefix renames the tools live, without a restart.
func TestSupervisor_CallsRouteByExposedPrefix(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	const brave = "github.com/modelcontextprotocol/servers/tree/main/src/brave-search"
	f := newFleet(t, map[string]func() *mcp.Server{
		brave:      toolServer(tool("search", "s")),
		"_private": toolServer(tool("read", "r")),
		"bare":     toolServer(tool("lookup", "l")),
	})
	path := filepath.Join(t.TempDir(), "mcp.json")
	servers := map[string]any{
		brave:      map[string]any{"command": "in-memory"},
		"_private": map[string]any{"command": "in-memory"},
		"bare":     map[string]any{"command": "in-memory", "prefix": ""},
	}
	writeConfig(t, path, servers)
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{path}})
	for name := range servers {
		rec.WaitState(ctx, 0, name, messages.StateReady)
	}

	prefixes := map[string]string{}
	for _, s := range sup.Status().Servers {
		prefixes[s.Name] = s.Prefix
	}
	bravePrefix := prefixes[brave]
	if bravePrefix == "" || bravePrefix == brave || prefixes["_private"] != "private" || prefixes["bare"] != "" {
		t.Fatalf("prefixes %q", prefixes)
	}
	for _, tl := range sup.Tools() {
		if tl.Server == brave && tl.Prefix != bravePrefix {
			t.Fatalf("tool %+v does not carry its server's prefix %q", tl, bravePrefix)
		}
	}
	for name, want := range map[string]string{
		actors.QualifiedName(bravePrefix, "search"): "search",
		"private__read": "read",
		"lookup":        "lookup",
	} {
		res, err := sup.CallTool(ctx, name, map[string]any{})
		if err != nil {
			t.Fatalf("call %s: %v", name, err)
		}
		if got := testkit.Text(res); got != want {
			t.Fatalf("call %s reached tool %q, want %q", name, got, want)
		}
	}
	for name, want := range map[string]error{
		brave + "__search": actors.ErrUnknownTool, // the name as written is not the prefix
		"nobody__x":        actors.ErrUnknownTool, // a bare server could own "nobody__x"
		"private__nope":    actors.ErrUnknownTool,
		"":                 actors.ErrBadToolName,
	} {
		if _, err := sup.CallTool(ctx, name, nil); !errors.Is(err, want) {
			t.Errorf("call %q: %v, want %v", name, err, want)
		}
	}

	session := sessionOf(sup, brave)
	mark := rec.Len()
	servers[brave] = map[string]any{"command": "in-memory", "prefix": "bs"}
	writeConfig(t, path, servers)
	reload(t, ctx, sup, rec)
	_, ev := rec.WaitFor(ctx, mark, "tools renamed", func(e messages.Event) bool {
		tc, ok := e.(*messages.ToolsChanged)
		return ok && tc.Server == brave && len(tc.Tools) == 1 && tc.Tools[0].Prefix == "bs"
	})
	if tc := ev.(*messages.ToolsChanged); len(tc.Changed) != 1 || tc.Changed[0] != "search" {
		t.Errorf("rename event %+v, want search changed", tc)
	}
	if res, err := sup.CallTool(ctx, "bs__search", nil); err != nil || testkit.Text(res) != "search" {
		t.Fatalf("call under the new prefix: %v %v", res, err)
	}
	if _, err := sup.CallTool(ctx, actors.QualifiedName(bravePrefix, "search"), nil); err == nil {
		t.Error("the old exposed name still routes")
	}
	if got := sessionOf(sup, brave); got != session {
		t.Errorf("session %d after the prefix change, want %d: a prefix applies live", got, session)
	}
}

func sessionOf(sup *actors.Supervisor, name string) uint64 {
	for _, s := range sup.Status().Servers {
		if s.Name == name {
			return s.Session
		}
	}
	return 0
}

// A name without "__" belongs to a server with the empty prefix; without
// one it is malformed. A name whose prefix no server has is an unknown
// server.
func TestSupervisor_BadAndUnknownNames(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, map[string]func() *mcp.Server{"alpha": toolServer(tool("echo", "e"))})
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{configFor(t, "alpha")}})
	rec.WaitState(ctx, 0, "alpha", messages.StateReady)
	for name, want := range map[string]error{
		"echo":        actors.ErrBadToolName,
		"beta__echo":  actors.ErrUnknownServer,
		"alpha__nope": actors.ErrUnknownTool,
	} {
		if _, err := sup.CallTool(ctx, name, nil); !errors.Is(err, want) {
			t.Errorf("call %q: %v, want %v", name, err, want)
		}
	}
}

// whoServer is an in-memory server whose tool "which" and prompt "greet"
// both answer with who, so a test sees where a name was routed.
func whoServer(who string) func() *mcp.Server {
	return func() *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: who, Version: "1"}, &mcp.ServerOptions{
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Prompts: &mcp.PromptCapabilities{ListChanged: true}},
			CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
				return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{who}}}, nil
			},
		})
		srv.AddTool(tool("which", "w"), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: who}}}, nil
		})
		srv.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: who}}}}, nil
		})
		return srv
	}
}

// Prompts are named as tools are: under the server's exposed prefix (a
// prefix field included), or bare for "prefix": "". A name two bare
// servers expose goes to the one declared first in config order (zeta,
// though it sorts last), as the gateway ranks them; a changed prefix
// re-announces the prompts as changed and renames them live.
func TestSupervisor_PromptsRouteByExposedPrefix(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	mClock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	f := newFleet(t, map[string]func() *mcp.Server{
		"github": whoServer("github"), "zeta": whoServer("zeta"), "alpha": whoServer("alpha"),
	})
	path := filepath.Join(t.TempDir(), "mcp.json")
	write := func(githubPrefix string) {
		t.Helper()
		data := `{"mcpServers": {
  "zeta": {"command": "in-memory", "prefix": ""},
  "alpha": {"command": "in-memory", "prefix": ""},
  "github": {"command": "in-memory", "prefix": "` + githubPrefix + `"}
}}`
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("gh")
	sup, rec := startInMemory(t, mClock, f, actors.Options{ConfigPaths: []string{path}})
	for _, name := range []string{"github", "zeta", "alpha"} {
		rec.WaitState(ctx, 0, name, messages.StateReady)
	}
	for _, p := range sup.Prompts() {
		if want := map[string]string{"github": "gh"}[p.Server]; p.Prefix != want {
			t.Fatalf("prompt %+v, want prefix %q", p, want)
		}
	}
	greet := func(name string) (string, error) {
		res, err := sup.GetPrompt(ctx, name, nil)
		if err != nil {
			return "", err
		}
		return res.Messages[0].Content.(*mcp.TextContent).Text, nil
	}
	complete := func(name string) (string, error) {
		res, err := sup.Complete(ctx, &mcp.CompleteReference{Type: "ref/prompt", Name: name}, mcp.CompleteParamsArgument{Name: "x"}, nil)
		if err != nil {
			return "", err
		}
		return res.Completion.Values[0], nil
	}
	for name, want := range map[string]string{"gh__greet": "github", "greet": "zeta"} {
		if got, err := greet(name); err != nil || got != want {
			t.Errorf("GetPrompt(%q) = %q, %v; want %s's", name, got, err, want)
		}
		if got, err := complete(name); err != nil || got != want {
			t.Errorf("Complete(%q) = %q, %v; want %s's", name, got, err, want)
		}
	}
	if res, err := sup.CallTool(ctx, "which", nil); err != nil || testkit.Text(res) != "zeta" {
		t.Errorf("CallTool(which) = %v, %v; want zeta's (declared first)", res, err)
	}
	for name, want := range map[string]error{
		"github__greet": actors.ErrUnknownPrompt, // the server's name is not its prefix
		"gh__nope":      actors.ErrUnknownPrompt,
		"nope":          actors.ErrUnknownPrompt,
	} {
		if _, err := greet(name); !errors.Is(err, want) {
			t.Errorf("GetPrompt(%q): %v, want %v", name, err, want)
		}
	}

	mark := rec.Len()
	write("hub")
	reload(t, ctx, sup, rec)
	_, ev := rec.WaitFor(ctx, mark, "prompts renamed", func(e messages.Event) bool {
		pc, ok := e.(*messages.PromptsChanged)
		return ok && pc.Server == "github" && len(pc.Prompts) == 1 && pc.Prompts[0].Prefix == "hub"
	})
	if pc := ev.(*messages.PromptsChanged); len(pc.Changed) != 1 || pc.Changed[0] != "greet" {
		t.Errorf("rename event %+v, want greet changed", pc)
	}
	if got, err := greet("hub__greet"); err != nil || got != "github" {
		t.Errorf("GetPrompt under the new prefix = %q, %v", got, err)
	}
	if _, err := greet("gh__greet"); err == nil {
		t.Error("the old exposed name still routes")
	}
}
