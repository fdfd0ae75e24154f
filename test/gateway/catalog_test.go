package gateway_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// catalogClient is a go-sdk client of the gateway that also signals
// prompt and resource list changes and every resources/updated.
type catalogClient struct {
	*client
	promptsChanged chan struct{}
	updated        chan string
}

func connectCatalog(t *testing.T, ctx context.Context, cmd *mcpCommand, pin string) *catalogClient {
	t.Helper()
	c := &catalogClient{client: &client{t: t, changed: make(chan struct{}, 64)}, promptsChanged: make(chan struct{}, 64), updated: make(chan string, 64)}
	signal := func(ch chan struct{}) {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	mc := mcp.NewClient(&mcp.Implementation{Name: "gateway-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { signal(c.changed) },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { signal(c.promptsChanged) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case c.updated <- req.Params.URI:
			default: // a periodic update the test does not wait for
			}
		},
	})
	cs, err := mc.Connect(ctx, &mcp.CommandTransport{Command: cmd.Cmd, TerminateDuration: 30 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		t.Fatalf("connect (protocol %q): %v; stderr:\n%s", pin, err, cmd.stderr)
	}
	c.cs = cs
	t.Cleanup(func() {
		_ = cs.Close()
		if t.Failed() {
			t.Logf("mcpvisor serve stderr:\n%s", cmd.stderr)
		}
	})
	return c
}

// mcpCommand is `mcpvisor serve` with its stderr collected.
type mcpCommand struct {
	Cmd    *exec.Cmd
	stderr *lineWaiter
}

func newServe(args ...string) *mcpCommand {
	cmd := serveCommand(args...)
	w := newLineWaiter()
	cmd.Stderr = w
	return &mcpCommand{Cmd: cmd, stderr: w}
}

func (c *catalogClient) prompts(ctx context.Context) []string {
	c.t.Helper()
	res, err := c.cs.ListPrompts(ctx, nil)
	if err != nil {
		c.t.Fatalf("list prompts: %v", err)
	}
	out := []string{}
	for _, p := range res.Prompts {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

func (c *catalogClient) readText(ctx context.Context, uri string) string {
	c.t.Helper()
	res, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		c.t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		c.t.Fatalf("read %s: %d contents, want 1", uri, len(res.Contents))
	}
	return res.Contents[0].Text
}

func (c *catalogClient) expectUpdated(ctx context.Context, uri string) {
	c.t.Helper()
	select {
	case got := <-c.updated:
		if got != uri {
			c.t.Fatalf("resources/updated for %s, want %s", got, uri)
		}
	case <-ctx.Done():
		c.t.Fatalf("no resources/updated for %s", uri)
	}
}

// `serve --names bare` over stdio: tools and prompts keep their servers'
// names; of two servers with the same tools, the first declared (zeta,
// though it sorts last) serves them, and the conflict is logged; the
// other server's prompts, resources and templates are served through the
// real supervisor.
func TestServe_BareNamesByConfigOrder(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			cfg := filepath.Join(t.TempDir(), ".mcp.json")
			zeta := testkit.Example(bin, "--name", "zeta")
			zeta.Env = map[string]string{"WHO": "zeta"}
			alpha := testkit.Example(bin, "--name", "alpha", "--prompts", "--resources", "--completion")
			alpha.Env = map[string]string{"WHO": "alpha"}
			writeOrdered(t, cfg, []string{"zeta", "alpha"}, []testkit.Server{zeta, alpha})

			cmd := newServe("--config", cfg, "--names", "bare")
			c := connectCatalog(t, ctx, cmd, p.pin)
			c.waitTools(ctx, []string{"add", "crash", "echo", "fail", "getenv", "pid", "sleep", "touch"})
			// alpha alone exposes the same names: only the conflict says
			// that both servers are in.
			cmd.stderr.waitLine(ctx, t, "catalog conflict", `"key": "getenv"`, `"winner": "zeta"`, `"loser": "alpha"`)
			if text, isErr := c.call(ctx, "getenv", map[string]any{"name": "WHO"}); text != "zeta" || isErr {
				t.Fatalf("getenv WHO = %q (isError %v), want zeta's (declared first)", text, isErr)
			}

			for !cmp.Equal(c.prompts(ctx), []string{"greet", "status"}) {
				select {
				case <-c.promptsChanged:
				case <-ctx.Done():
					t.Fatalf("prompts %v, want greet and status", c.prompts(ctx))
				}
			}
			got, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
			if err != nil {
				t.Fatal(err)
			}
			if tc, ok := got.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Say hello to Ada in english." {
				t.Errorf("greet = %+v, want alpha's greeting", got.Messages[0].Content)
			}
			if text := c.readText(ctx, "example://static/readme"); text != "This is the example server's static text resource.\n" {
				t.Errorf("readme = %q", text)
			}
			if text := c.readText(ctx, "example://items/apple"); text == "" {
				t.Error("example://items/apple (a template's) read empty")
			}
			res, err := c.cs.Complete(ctx, &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "example://items/{id}"},
				Argument: mcp.CompleteParamsArgument{Name: "id", Value: "ap"},
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"apple", "apricot"}, res.Completion.Values); diff != "" {
				t.Errorf("completion of id=ap (-want +got):\n%s", diff)
			}
		})
	}
}

// A client's subscription through the gateway reaches the server (which
// announces an update every 50ms to its subscribers), and outlives a
// crash and restart of that server: the new process's updates arrive too.
func TestServe_SubscriptionSurvivesServerRestart(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			cfg := filepath.Join(t.TempDir(), ".mcp.json")
			testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin, "--name", "alpha", "--resources", "--update-every", "50ms")})
			cmd := newServe("--config", cfg)
			c := connectCatalog(t, ctx, cmd, p.pin)
			tools := append(qualified("alpha"), "alpha__touch")
			slices.Sort(tools)
			c.waitTools(ctx, tools)

			const counter = "example://counter"
			if err := c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: counter}); err != nil {
				t.Fatal(err)
			}
			c.expectUpdated(ctx, counter)

			before := c.pid(ctx, "alpha")
			_, _ = c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__crash", Arguments: map[string]any{}})
			c.expectChange(ctx, []string{}) // alpha failed: its tools go
			c.waitTools(ctx, tools)         // and come back after the restart
			if after := c.pid(ctx, "alpha"); after == before {
				t.Fatalf("alpha's pid is still %d: it did not restart", after)
			}
			for len(c.updated) > 0 { // what the old process sent
				<-c.updated
			}
			c.expectUpdated(ctx, counter)
		})
	}
}

// writeOrdered writes an mcpServers file with the servers in the order
// given (testkit.WriteConfig sorts them).
func writeOrdered(t *testing.T, path string, names []string, servers []testkit.Server) {
	t.Helper()
	data := []byte(`{"mcpServers": {`)
	for i, name := range names {
		raw, err := json.Marshal(servers[i])
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			data = append(data, ',')
		}
		data = append(data, "\n  \""+name+"\": "...)
		data = append(data, raw...)
	}
	data = append(data, "\n}}\n"...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
