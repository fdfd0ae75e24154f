package gateway_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// The protocols a client may speak: the go-sdk's default (2026-07-28) and
// the legacy one. want is what each negotiates with `mcpvisor serve`.
var protocols = []struct{ name, pin, want string }{
	{"default", "", "2026-07-28"},
	{"2025-11-25", "2025-11-25", "2025-11-25"},
}

// exampleTools are the example server's tools, sorted.
var exampleTools = []string{"add", "crash", "echo", "fail", "getenv", "pid", "sleep"}

// qualified lists the gateway's names for the example tools of servers.
func qualified(servers ...string) []string {
	var out []string
	for _, s := range servers {
		for _, t := range exampleTools {
			out = append(out, s+"__"+t)
		}
	}
	slices.Sort(out)
	return out
}

// example is a config entry running the example server under name.
func example(name string) testkit.Server { return testkit.Example(bin, "--name", name) }

// client is a go-sdk client session of the gateway that signals every
// tools/list_changed on changed.
type client struct {
	t       *testing.T
	cs      *mcp.ClientSession
	changed chan struct{}
}

func connect(t *testing.T, ctx context.Context, transport mcp.Transport, pin string) *client {
	t.Helper()
	changed := make(chan struct{}, 64)
	c := mcp.NewClient(&mcp.Implementation{Name: "gateway-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := c.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		t.Fatalf("connect (protocol %q): %v", pin, err)
	}
	return &client{t: t, cs: cs, changed: changed}
}

func (c *client) names(ctx context.Context) []string {
	c.t.Helper()
	res, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		c.t.Fatalf("list tools: %v", err)
	}
	out := []string{}
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	slices.Sort(out)
	return out
}

// waitTools waits, notification by notification, until the tool list is
// want.
func (c *client) waitTools(ctx context.Context, want []string) {
	c.t.Helper()
	for {
		got := c.names(ctx)
		if cmp.Equal(want, got) {
			return
		}
		select {
		case <-c.changed:
		case <-ctx.Done():
			c.t.Fatalf("tools never became as wanted (-want +got):\n%s", cmp.Diff(want, got))
		}
	}
}

// expectChange waits for a tools/list_changed, then for the list to be
// want.
func (c *client) expectChange(ctx context.Context, want []string) {
	c.t.Helper()
	select {
	case <-c.changed:
	case <-ctx.Done():
		c.t.Fatalf("no tools/list_changed (want tools %v): %v", want, ctx.Err())
	}
	c.waitTools(ctx, want)
}

// call calls a tool and returns its only text content.
func (c *client) call(ctx context.Context, name string, args map[string]any) (text string, isError bool) {
	c.t.Helper()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("call %s: %v", name, err)
	}
	if len(res.Content) != 1 {
		c.t.Fatalf("call %s: %d contents, want 1: %+v", name, len(res.Content), res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		c.t.Fatalf("call %s: content is %T", name, res.Content[0])
	}
	return tc.Text, res.IsError
}

// pid calls server__pid: the server's process id.
func (c *client) pid(ctx context.Context, server string) int {
	c.t.Helper()
	text, isErr := c.call(ctx, server+"__pid", nil)
	pid, err := strconv.Atoi(text)
	if isErr || err != nil {
		c.t.Fatalf("%s__pid = %q (isError %v)", server, text, isErr)
	}
	return pid
}

// lineWaiter collects a process's stderr and lets a test wait for a line.
type lineWaiter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // closed and replaced on every write
}

func newLineWaiter() *lineWaiter { return &lineWaiter{written: make(chan struct{})} }

func (w *lineWaiter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	close(w.written)
	w.written = make(chan struct{})
	return len(p), nil
}

func (w *lineWaiter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitLine waits for a line that contains every one of parts.
func (w *lineWaiter) waitLine(ctx context.Context, t *testing.T, parts ...string) string {
	t.Helper()
	for {
		w.mu.Lock()
		lines, written := strings.Split(w.buf.String(), "\n"), w.written
		w.mu.Unlock()
		for _, line := range lines {
			if containsAll(line, parts) {
				return line
			}
		}
		select {
		case <-written:
		case <-ctx.Done():
			t.Fatalf("no stderr line with %q; stderr:\n%s", parts, w)
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// serveCommand is `bin serve args...` with this process's environment,
// minus the mark a gateway leaves on what it starts: tests may themselves
// run under an `mcpvisor serve`.
func serveCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCPVISOR_SERVE_PID=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}
